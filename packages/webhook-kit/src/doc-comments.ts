import { tsPlugin } from '@sveltejs/acorn-typescript';
import { type Comment, Parser } from 'acorn';
import { WebhookError } from './errors.js';
import { extensionOf, fileSystemReader } from './source-files.js';

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

/** An ESTree node as acorn (with the TypeScript plugin) builds it; read loosely, by `type`. */
interface AstNode {
  readonly type: string;
  readonly start: number;
  readonly end: number;
  readonly [field: string]: unknown;
}

// The parsers to try per dialect, built on first use. `.ts`/`.mts`/`.cts` cannot have JSX (`<T>(x) => x`
// is a generic arrow there); JavaScript files and `.tsx` may, as with the TypeScript compiler's script
// kinds. JavaScript files fall back to plain acorn: the TypeScript plugin refuses a few valid JavaScript
// forms (a function expression named `type` or `global`).
let typescriptParser: typeof Parser | undefined;
let jsxParser: typeof Parser | undefined;

function parsersFor(sourcePath: string): (typeof Parser)[] {
  switch (extensionOf(sourcePath)) {
    case '.js':
    case '.mjs':
    case '.cjs':
    case '.jsx':
      jsxParser ??= Parser.extend(tsPlugin({ jsx: true }));
      return [jsxParser, Parser];
    case '.tsx':
      jsxParser ??= Parser.extend(tsPlugin({ jsx: true }));
      return [jsxParser];
    default:
      typescriptParser ??= Parser.extend(tsPlugin());
      return [typescriptParser];
  }
}

function isNode(value: unknown): value is AstNode {
  return (
    typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string'
  );
}

/** The name `instance[name]` would reach: identifiers, strings and numbers; not computed or `#private`. */
function propertyName(key: unknown, computed: unknown): string | undefined {
  if (computed === true || !isNode(key)) return undefined;
  if (key.type === 'Identifier') return key['name'] as string;
  if (key.type === 'Literal') {
    const value = key['value'];
    if (typeof value === 'string') return value;
    if (typeof value === 'number') return String(value);
  }
  return undefined;
}

/** A function expression or arrow function itself (a parenthesised or cast one is not, as in TypeScript). */
function isFunctionValue(node: unknown): node is AstNode {
  return isNode(node) && (node.type === 'FunctionExpression' || node.type === 'ArrowFunctionExpression');
}

const CLASS_METHODS = new Set(['MethodDefinition', 'TSAbstractMethodDefinition']);
const CLASS_FIELDS = new Set([
  'PropertyDefinition',
  'TSAbstractPropertyDefinition',
  'AccessorProperty',
  'TSAbstractAccessorProperty',
]);
const FUNCTIONS = new Set(['FunctionDeclaration', 'TSDeclareFunction']);
const EXPORTS = new Set(['ExportNamedDeclaration', 'ExportDefaultDeclaration']);

/**
 * The name a class member's doc comment is filed under: the class's own name, else the variable it
 * initialises (`const Foo = class { … }`), else `default` (`export default class { … }`).
 */
function className(classNode: AstNode, parent: AstNode | undefined): string | undefined {
  const id = classNode['id'];
  if (isNode(id)) return id['name'] as string;
  if (parent?.type === 'VariableDeclarator' && parent['init'] === classNode) {
    const binding = parent['id'];
    return isNode(binding) && binding.type === 'Identifier' ? (binding['name'] as string) : undefined;
  }
  return 'default';
}

/**
 * Parses one source file (TypeScript or JavaScript) and lists its method-like declarations with their
 * `@webhook` tags: class methods (overload signatures and abstract ones included) and function-valued class
 * fields, object-literal methods and function-valued properties, function declarations and function-valued
 * variables. The parser is acorn with the TypeScript plugin: no dependency on the `typescript` package.
 * Throws a {@link WebhookError} when the file cannot be read (`ERR_SOURCE_UNREADABLE`) or is not valid
 * TypeScript or JavaScript (`ERR_SOURCE_UNPARSABLE`, naming the line).
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
    const read = fileSystemReader();
    if (read === undefined) throw new Error('this runtime has no node:fs');
    text = read(sourcePath);
  } catch (cause) {
    throw new WebhookError('ERR_SOURCE_UNREADABLE', `cannot read module source ${sourcePath}`, { cause });
  }
  return parseDocumentedMethods(sourcePath, text);
}

/**
 * {@link readDocumentedMethods} on text already read from `sourcePath` (which names the file in errors and
 * picks the dialect by its extension). Internal: discovery reads the file itself.
 *
 * @example
 * ```ts
 * parseDocumentedMethods('/srv/modules/github.ts', source);
 * ```
 */
export function parseDocumentedMethods(sourcePath: string, text: string): DocumentedMethod[] {
  const comments: Comment[] = [];
  let program: AstNode;
  try {
    program = parseProgram(sourcePath, text, comments);
  } catch (cause) {
    const where = (cause as { loc?: { line?: number } }).loc?.line;
    throw new WebhookError(
      'ERR_SOURCE_UNPARSABLE',
      `cannot parse module source ${sourcePath}${where !== undefined ? `:${where}` : ''} to read its @webhook tags: ${(cause as Error).message}`,
      { cause },
    );
  }
  const docComments = comments.filter(isDocComment);
  const lineStarts = lineStartsOf(text);
  const found: { start: number; method: DocumentedMethod }[] = [];

  /** The `@webhook` tags of the last doc comment in the trivia right before `position`. */
  function tagsBefore(position: number): string[] {
    const comment = lastDocCommentBefore(text, docComments, position);
    return comment === undefined ? [] : webhookTagsOf(comment.value);
  }

  function record(
    node: AstNode,
    name: string | undefined,
    tags: string[],
    classNode?: AstNode,
    classParent?: AstNode,
  ): void {
    if (name === undefined) return;
    const owner = classNode !== undefined ? className(classNode, classParent) : undefined;
    const line = lineOf(lineStarts, node.start);
    found.push({
      start: node.start,
      method: { ...(owner !== undefined ? { className: owner } : {}), name, webhookTags: tags, line },
    });
  }

  // `ancestors[ancestors.length - 1]` is the parent of the node being visited.
  const ancestors: AstNode[] = [];
  const parentAt = (depth: number): AstNode | undefined => ancestors[ancestors.length - depth];

  function visit(node: AstNode): void {
    const parent = parentAt(1);
    if (CLASS_METHODS.has(node.type) && node['kind'] === 'method') {
      // ClassBody → ClassDeclaration/ClassExpression → its parent.
      record(
        node,
        propertyName(node['key'], node['computed']),
        tagsBefore(node.start),
        parentAt(2),
        parentAt(3),
      );
    } else if (CLASS_FIELDS.has(node.type) && isFunctionValue(node['value'])) {
      // The initializer's doc comment first, then the field's, in the order TypeScript lists them.
      const tags = [...tagsBefore(node['value'].start), ...tagsBefore(node.start)];
      record(node, propertyName(node['key'], node['computed']), tags, parentAt(2), parentAt(3));
    } else if (node.type === 'Property' && parent?.type === 'ObjectExpression' && node['kind'] === 'init') {
      const value = node['value'];
      if (node['method'] === true) {
        record(node, propertyName(node['key'], node['computed']), tagsBefore(node.start));
      } else if (node['shorthand'] !== true && isFunctionValue(value)) {
        const tags = [...tagsBefore(value.start), ...tagsBefore(node.start)];
        record(node, propertyName(node['key'], node['computed']), tags);
      }
    } else if (FUNCTIONS.has(node.type) && isNode(node['id'])) {
      // `export function f` is one declaration in TypeScript: the comment sits before `export`.
      const start = parent !== undefined && EXPORTS.has(parent.type) ? parent.start : node.start;
      record({ ...node, start }, node['id']['name'] as string, tagsBefore(start));
    } else if (node.type === 'VariableDeclarator' && isFunctionValue(node['init'])) {
      // In the order TypeScript lists them: the initializer's doc comment, the variable's own, then the
      // statement's, which belongs to its first variable (`/** … */ export const a = …, b = …`).
      const tags = [...tagsBefore(node['init'].start), ...tagsBefore(node.start)];
      const statement = parent;
      if (statement !== undefined && (statement['declarations'] as unknown[])[0] === node) {
        const exported = parentAt(2);
        const start = exported !== undefined && EXPORTS.has(exported.type) ? exported.start : statement.start;
        tags.push(...tagsBefore(start));
      }
      const id = node['id'];
      record(node, isNode(id) && id.type === 'Identifier' ? (id['name'] as string) : undefined, tags);
    }
    ancestors.push(node);
    for (const key of Object.keys(node)) {
      if (key === 'loc' || key === 'type' || key === 'start' || key === 'end') continue;
      const child = node[key];
      if (Array.isArray(child)) {
        for (const item of child) if (isNode(item)) visit(item);
      } else if (isNode(child)) {
        visit(child);
      }
    }
    ancestors.pop();
  }
  visit(program);
  // Source order, as a reader of the file sees the declarations (object keys need not be in that order).
  return found.sort((a, b) => a.start - b.start).map((entry) => entry.method);
}

/**
 * Parses as a module (strict mode), and when that fails as a script, so that a sloppy-mode CommonJS file
 * (`with`, legacy octal literals, `arguments` tricks) is read too, as the TypeScript compiler would; each
 * with the dialect's parsers in turn. The first error is the one reported.
 */
function parseProgram(sourcePath: string, text: string, comments: Comment[]): AstNode {
  let firstError: unknown;
  for (const parser of parsersFor(sourcePath)) {
    for (const sourceType of ['module', 'script'] as const) {
      comments.length = 0;
      try {
        return parser.parse(text, {
          ecmaVersion: 'latest',
          sourceType,
          locations: true,
          // Keep `(() => {})` visible: TypeScript does not count a parenthesised function as a method.
          preserveParens: true,
          allowHashBang: true,
          allowReturnOutsideFunction: true,
          allowImportExportEverywhere: true,
          allowAwaitOutsideFunction: true,
          onComment: comments,
        }) as unknown as AstNode;
      } catch (error) {
        firstError ??= error;
      }
    }
  }
  throw firstError;
}

/** `/** … *\/`, not `/**\/` (which is an empty block comment). */
function isDocComment(comment: Comment): boolean {
  return comment.type === 'Block' && comment.value.startsWith('*') && comment.end - comment.start > 4;
}

/**
 * The doc comment that TypeScript would attach to a node starting at `position`: the last one among the
 * comments right before it, with only whitespace and other comments between them and the node.
 */
function lastDocCommentBefore(
  text: string,
  docComments: readonly Comment[],
  position: number,
): Comment | undefined {
  // Binary search: the last doc comment ending at or before `position`.
  let low = 0;
  let high = docComments.length - 1;
  let index = -1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    if ((docComments[middle] as Comment).end <= position) {
      index = middle;
      low = middle + 1;
    } else {
      high = middle - 1;
    }
  }
  if (index < 0) return undefined;
  const comment = docComments[index] as Comment;
  return onlyTriviaBetween(text, comment.end, position) ? comment : undefined;
}

/** Whether `text[from, to)` holds only whitespace and comments. */
function onlyTriviaBetween(text: string, from: number, to: number): boolean {
  let position = from;
  while (position < to) {
    const char = text.charCodeAt(position);
    if (char === 0x2f /* / */ && text.charCodeAt(position + 1) === 0x2a /* * */) {
      const close = text.indexOf('*/', position + 2);
      if (close < 0 || close + 2 > to) return false;
      position = close + 2;
    } else if (char === 0x2f && text.charCodeAt(position + 1) === 0x2f) {
      const newline = text.slice(position, to).search(/[\n\r\u2028\u2029]/);
      if (newline < 0) return false;
      position += newline;
    } else if (/\s/.test(text[position] as string)) {
      position++;
    } else {
      return false;
    }
  }
  return true;
}

function lineStartsOf(text: string): number[] {
  const starts = [0];
  const lineBreak = /\r\n?|[\n\u2028\u2029]/g;
  for (let match = lineBreak.exec(text); match !== null; match = lineBreak.exec(text)) {
    starts.push(match.index + match[0].length);
  }
  return starts;
}

function lineOf(lineStarts: readonly number[], position: number): number {
  let low = 0;
  let high = lineStarts.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if ((lineStarts[middle] as number) <= position) low = middle;
    else high = middle - 1;
  }
  return low + 1;
}

const LINE_BREAK = /\r\n?|[\n\u2028\u2029]/;
const TAG_NAME = /^[\p{ID_Continue}$-]*/u;
const LINK = /^\{@link(?:code|plain)?(?![\p{ID_Continue}$-])/u;

/**
 * The texts of the `@webhook` tags of one doc comment (`value` is the text between `/*` and `*\/`, so it
 * starts with the doc comment's second `*`), by the rules of the TypeScript compiler's JSDoc reader:
 *
 * - a tag starts at an `@` that begins a line (after whitespace and one `*`), or that follows a space or tab
 *   and is followed by a non-space: so `a@b.c`, `` `@webhook` `` in prose and `{@webhook}` are not tags;
 * - inside a tag's text, a backtick code span hides `@` (until the line ends);
 * - `{@link …}` (and `linkcode`, `linkplain`) is read to its `}`: an `@` in it is not a tag;
 * - a tag's text runs to the next tag or the end of the comment; continuation lines lose their leading
 *   whitespace and `*`, and the text is trimmed.
 */
export function webhookTagsOf(value: string): string[] {
  const lines = value.slice(1).split(LINE_BREAK);
  const tags: string[] = [];
  let current: string[] | undefined; // the lines of the `@webhook` tag being read, if any
  let inTag = false; // reading some tag's text (backticks only count there)
  let name = '';

  function finishTag(): void {
    if (current !== undefined && name === 'webhook') tags.push(current.join('\n').trim());
    current = undefined;
  }
  function startTag(rest: string): string {
    finishTag();
    const tagName = TAG_NAME.exec(rest)?.[0] ?? '';
    name = tagName;
    inTag = true;
    current = [];
    return rest.slice(tagName.length);
  }

  lines.forEach((rawLine, lineIndex) => {
    // The line's margin: whitespace and one `*` (the comment's first line has had its `*` already).
    const margin = lineIndex === 0 ? /^[ \t]*/ : /^[ \t]*(?:\*[ \t]*)?/;
    let line = rawLine.slice(margin.exec(rawLine)?.[0].length ?? 0);
    if (line.startsWith('@')) {
      line = startTag(line.slice(1));
    }
    let text = '';
    let inBackticks = false;
    let position = 0;
    while (position < line.length) {
      const char = line[position] as string;
      if (char === '`') {
        if (inTag) inBackticks = !inBackticks;
      } else if (!inBackticks && char === '{') {
        const link = LINK.exec(line.slice(position));
        if (link !== null) {
          const close = line.indexOf('}', position);
          const end = close < 0 ? line.length : close + 1;
          text += line.slice(position, end);
          position = end;
          continue;
        }
      } else if (
        !inBackticks &&
        char === '@' &&
        /[ \t]/.test(line[position - 1] ?? '') &&
        !/\s/.test(line[position + 1] ?? ' ')
      ) {
        current?.push(text);
        text = '';
        line = startTag(line.slice(position + 1));
        position = 0;
        inBackticks = false;
        continue;
      }
      text += char;
      position++;
    }
    current?.push(text);
  });
  finishTag();
  return tags;
}
