// The reader this package used before it dropped the `typescript` dependency: the TypeScript compiler's
// own parser and JSDoc reader. Kept as the oracle the acorn-based reader is compared against
// (doc-comments.oracle.test.ts). `typescript` is a devDependency only.
import { extname } from 'node:path';
import type * as TS from 'typescript';
import * as ts from 'typescript';
import type { DocumentedMethod } from '../../src/doc-comments.js';

function scriptKind(sourcePath: string): TS.ScriptKind {
  switch (extname(sourcePath).toLowerCase()) {
    case '.js':
    case '.mjs':
    case '.cjs':
      return ts.ScriptKind.JS;
    case '.jsx':
      return ts.ScriptKind.JSX;
    case '.tsx':
      return ts.ScriptKind.TSX;
    default:
      return ts.ScriptKind.TS;
  }
}

function propertyName(name: TS.PropertyName | TS.BindingName): string | undefined {
  if (ts.isIdentifier(name) || ts.isStringLiteral(name) || ts.isNumericLiteral(name)) return name.text;
  // Computed and `#private` names are not reachable as `instance[name]`, so they are never webhooks.
  return undefined;
}

function isFunctionValue(node: TS.Node | undefined): boolean {
  return node !== undefined && (ts.isFunctionExpression(node) || ts.isArrowFunction(node));
}

function enclosingClassName(node: TS.Node): string | undefined {
  const parent = node.parent;
  if (parent !== undefined && (ts.isClassDeclaration(parent) || ts.isClassExpression(parent))) {
    if (parent.name !== undefined) return parent.name.text;
    // `const Foo = class { … }` and `export default class { … }` take their name from the binding.
    if (parent.parent !== undefined && ts.isVariableDeclaration(parent.parent)) {
      return propertyName(parent.parent.name);
    }
    return 'default';
  }
  return undefined;
}

export function parseWithTypescript(sourcePath: string, text: string): DocumentedMethod[] {
  const file = ts.createSourceFile(sourcePath, text, ts.ScriptTarget.Latest, true, scriptKind(sourcePath));
  const found: DocumentedMethod[] = [];

  function record(node: TS.Node, name: string | undefined): void {
    if (name === undefined) return;
    const webhookTags = ts
      .getJSDocTags(node)
      .filter((tag) => tag.tagName.text === 'webhook')
      .map((tag) => (ts.getTextOfJSDocComment(tag.comment) ?? '').trim());
    const className = enclosingClassName(node);
    const line = file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1;
    found.push({ ...(className !== undefined ? { className } : {}), name, webhookTags, line });
  }

  function visit(node: TS.Node): void {
    if (ts.isMethodDeclaration(node)) {
      record(node, propertyName(node.name));
    } else if (ts.isPropertyDeclaration(node) || ts.isPropertyAssignment(node)) {
      if (isFunctionValue(node.initializer)) record(node, propertyName(node.name));
    } else if (ts.isFunctionDeclaration(node) && node.name !== undefined) {
      record(node, node.name.text);
    } else if (ts.isVariableDeclaration(node) && isFunctionValue(node.initializer)) {
      record(node, propertyName(node.name));
    }
    ts.forEachChild(node, visit);
  }
  visit(file);
  return found;
}
