import { readFileSync } from 'node:fs';
import ts from 'typescript';

export interface SourceImport {
  /** Absolute path of the importing file. */
  file: string;
  /** 1-based line of the import. */
  line: number;
  /** The module specifier exactly as written. */
  specifier: string;
  /** True when nothing of the import survives compilation (`import type`, `export type`, `typeof import()`). */
  typeOnly: boolean;
}

/** True when every named binding of an import/export clause is marked `type`, so the statement is erased. */
function allBindingsTypeOnly(elements: ts.NodeArray<ts.ImportSpecifier | ts.ExportSpecifier>): boolean {
  return elements.length > 0 && elements.every((element) => element.isTypeOnly);
}

function importIsTypeOnly(node: ts.ImportDeclaration): boolean {
  const clause = node.importClause;
  if (!clause) return false; // `import 'x'` runs x for its side effects
  if (clause.isTypeOnly) return true;
  if (clause.name) return false;
  const bindings = clause.namedBindings;
  return bindings !== undefined && ts.isNamedImports(bindings) && allBindingsTypeOnly(bindings.elements);
}

function exportIsTypeOnly(node: ts.ExportDeclaration): boolean {
  if (node.isTypeOnly) return true;
  const clause = node.exportClause;
  return clause !== undefined && ts.isNamedExports(clause) && allBindingsTypeOnly(clause.elements);
}

/**
 * Every module a file imports, parsed with the TypeScript compiler so that imports shown in comments
 * (TSDoc examples) never count: static imports and re-exports, `import()` calls, `import('x')` types.
 */
export function sourceImports(file: string): SourceImport[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: SourceImport[] = [];
  const record = (node: ts.Node, specifier: ts.Expression | undefined, typeOnly: boolean) => {
    if (!specifier || !ts.isStringLiteralLike(specifier)) return;
    const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
    found.push({ file, line: line + 1, specifier: specifier.text, typeOnly });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) record(node, node.moduleSpecifier, importIsTypeOnly(node));
    else if (ts.isExportDeclaration(node)) record(node, node.moduleSpecifier, exportIsTypeOnly(node));
    else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference))
      record(node, node.moduleReference.expression, node.isTypeOnly);
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword)
      record(node, node.arguments[0], false);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument))
      record(node, node.argument.literal, true);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}
