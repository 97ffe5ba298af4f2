import { realpathSync } from 'node:fs';
import { resolve, sep } from 'node:path';

/**
 * Whether an already-resolved absolute path lies in the scope directory, with the path-separator guard:
 * `/workspace/proj` holds `/workspace/proj` and `/workspace/proj/a/b.ts`, never `/workspace/projX/foo`.
 * Pure string logic; use {@link isFileInScope} for a path that may contain symlinks.
 *
 * @example
 * ```ts
 * isPathInScope('/workspace/proj', '/workspace/proj/a/b.ts'); // true
 * isPathInScope('/workspace/proj', '/workspace/projX/foo'); // false
 * ```
 */
export function isPathInScope(scopeDir: string, resolvedPath: string): boolean {
  const dir = resolve(scopeDir);
  const path = resolve(resolvedPath);
  if (path === dir) return true;
  return path.startsWith(dir.endsWith(sep) ? dir : dir + sep);
}

/**
 * Whether a file lies in the scope directory once every symlink on its path is resolved, so a link inside
 * the scope that points outside it does not pass. A file that does not exist is in no scope.
 *
 * @example
 * ```ts
 * if (!isFileInScope(claim.scopeDir, toolModule.sourcePath)) hide(toolModule);
 * ```
 */
export function isFileInScope(scopeDir: string, filePath: string): boolean {
  const resolved = resolveExistingPath(filePath);
  return resolved !== undefined && isPathInScope(scopeDir, resolved);
}

/**
 * The absolute, symlink-free form of an existing path, or `undefined` when it does not resolve.
 *
 * @example
 * ```ts
 * resolveExistingPath('./src/tools.ts'); // '/workspace/proj/src/tools.ts'
 * ```
 */
export function resolveExistingPath(path: string): string | undefined {
  try {
    return realpathSync.native(resolve(path));
  } catch {
    return undefined;
  }
}

export { resolveScopeDir } from './scope-dir.js';
