import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { extname } from 'node:path';
import type * as TS from 'typescript';
import { WebhookError } from './errors.js';

/** One method-like declaration found in a source file and the `@webhook` tags of its doc comment. */
export interface DocumentedMethod {
  /** The enclosing class's name, when the declaration is a class member. */
  readonly className?: string;
  /** The method (or function, or function-valued property) name. */
  readonly name: string;
  /** The text of each `@webhook` tag, trimmed (`''` for a bare tag). */
  readonly webhookTags: readonly string[];
  /** 1-based line of the declaration, for error messages. */
  readonly line: number;
}

let typescript: typeof TS | undefined;

/**
 * Loads the optional peer `typescript` on first use only, so hosts whose modules name no source file
 * never need it installed.
 */
function loadTypescript(sourcePath: string): typeof TS {
  if (typescript !== undefined) return typescript;
  try {
    typescript = createRequire(import.meta.url)('typescript') as typeof TS;
  } catch (cause) {
    throw new WebhookError(
      'ERR_PARSER_UNAVAILABLE',
      `reading @webhook tags from ${sourcePath} needs the "typescript" package; install it next to @keyhold/webhook-kit`,
      { cause },
    );
  }
  return typescript;
}

function scriptKind(ts: typeof TS, sourcePath: string): TS.ScriptKind {
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

function propertyName(ts: typeof TS, name: TS.PropertyName | TS.BindingName): string | undefined {
  if (ts.isIdentifier(name) || ts.isStringLiteral(name) || ts.isNumericLiteral(name)) return name.text;
  // Computed and `#private` names are not reachable as `instance[name]`, so they are never webhooks.
  return undefined;
}

function isFunctionValue(ts: typeof TS, node: TS.Node | undefined): boolean {
  return node !== undefined && (ts.isFunctionExpression(node) || ts.isArrowFunction(node));
}

function enclosingClassName(ts: typeof TS, node: TS.Node): string | undefined {
  const parent = node.parent;
  if (parent !== undefined && (ts.isClassDeclaration(parent) || ts.isClassExpression(parent))) {
    if (parent.name !== undefined) return parent.name.text;
    // `const Foo = class { … }` and `export default class { … }` take their name from the binding.
    if (parent.parent !== undefined && ts.isVariableDeclaration(parent.parent)) {
      return propertyName(ts, parent.parent.name);
    }
    return 'default';
  }
  return undefined;
}

/**
 * Parses one source file (TypeScript or JavaScript) with the TypeScript compiler's parser and lists its
 * method-like declarations with their `@webhook` tags: class methods and function-valued class fields,
 * object-literal methods and function-valued properties, function declarations and function-valued
 * variables. Only the syntax tree is built (no type checking), once per file. Throws a
 * {@link WebhookError} when the file cannot be read (`ERR_SOURCE_UNREADABLE`) or the optional peer
 * `typescript` is not installed (`ERR_PARSER_UNAVAILABLE`).
 *
 * @example
 * ```ts
 * const methods = readDocumentedMethods('/srv/modules/github.ts');
 * methods.find((m) => m.name === 'onPush')?.webhookTags; // ['github/push']
 * ```
 */
export function readDocumentedMethods(sourcePath: string): DocumentedMethod[] {
  let text: string;
  try {
    text = readFileSync(sourcePath, 'utf8');
  } catch (cause) {
    throw new WebhookError('ERR_SOURCE_UNREADABLE', `cannot read module source ${sourcePath}`, { cause });
  }
  return parseDocumentedMethods(sourcePath, text);
}

/**
 * {@link readDocumentedMethods} on text already read from `sourcePath` (which names the file in line
 * numbers and picks the script kind by its extension). Internal: discovery reads the file itself.
 *
 * @example
 * ```ts
 * parseDocumentedMethods('/srv/modules/github.ts', source);
 * ```
 */
export function parseDocumentedMethods(sourcePath: string, text: string): DocumentedMethod[] {
  const ts = loadTypescript(sourcePath);
  const file = ts.createSourceFile(
    sourcePath,
    text,
    ts.ScriptTarget.Latest,
    true,
    scriptKind(ts, sourcePath),
  );
  const found: DocumentedMethod[] = [];

  function record(node: TS.Node, name: string | undefined): void {
    if (name === undefined) return;
    const webhookTags = ts
      .getJSDocTags(node)
      .filter((tag) => tag.tagName.text === 'webhook')
      .map((tag) => (ts.getTextOfJSDocComment(tag.comment) ?? '').trim());
    const className = enclosingClassName(ts, node);
    const line = file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1;
    found.push({ ...(className !== undefined ? { className } : {}), name, webhookTags, line });
  }

  function visit(node: TS.Node): void {
    if (ts.isMethodDeclaration(node)) {
      record(node, propertyName(ts, node.name));
    } else if (ts.isPropertyDeclaration(node) || ts.isPropertyAssignment(node)) {
      if (isFunctionValue(ts, node.initializer)) record(node, propertyName(ts, node.name));
    } else if (ts.isFunctionDeclaration(node) && node.name !== undefined) {
      record(node, node.name.text);
    } else if (ts.isVariableDeclaration(node) && isFunctionValue(ts, node.initializer)) {
      record(node, propertyName(ts, node.name));
    }
    ts.forEachChild(node, visit);
  }
  visit(file);
  return found;
}
