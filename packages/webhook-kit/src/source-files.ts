/**
 * Reads a tool module's source text, or `undefined` when it cannot be read (discovery then exposes only
 * `handle*` methods). The default reads the file system; a runtime without one (workerd) passes the sources
 * it bundled, e.g. `(path) => sources[path]`.
 *
 * @example
 * ```ts
 * const readSource: ReadSource = (path) => (path === '/app/github.ts' ? githubSource : undefined);
 * ```
 */
export type ReadSource = (sourcePath: string) => string | undefined;

type NodeFs = { readFileSync(path: string, encoding: 'utf8'): string };

/**
 * `node:fs`'s `readFileSync` through `process.getBuiltinModule` (Node ≥ 20.16, Bun, Deno, workerd with
 * `nodejs_compat`): no static import, so the main entry loads where there is no file system.
 */
export function fileSystemReader(): ((sourcePath: string) => string) | undefined {
  const runtime = (globalThis as { process?: { getBuiltinModule?: (name: string) => unknown } }).process;
  const fs = runtime?.getBuiltinModule?.('node:fs') as NodeFs | undefined;
  return typeof fs?.readFileSync === 'function' ? (path) => fs.readFileSync(path, 'utf8') : undefined;
}

/** The file's extension, lower-cased, without `node:path`. */
export function extensionOf(path: string): string {
  const name = path.slice(Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\')) + 1);
  const dot = name.lastIndexOf('.');
  return dot <= 0 ? '' : name.slice(dot).toLowerCase();
}
