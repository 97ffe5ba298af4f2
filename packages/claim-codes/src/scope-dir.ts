import type * as FsPromises from 'node:fs/promises';
import type * as Path from 'node:path';
import { nodeBuiltin } from '@keyhold/internal';
import { ClaimCodesError } from './errors.js';

// The main entry's default scope resolver: Node's file system, loaded on first use without a static import,
// so the main entry bundles for a worker (which passes its own `resolveScopeDir`).

/**
 * Resolves a claim's scope: made absolute (against `process.cwd()` when relative) and resolved through
 * symlinks. Throws `ERR_INVALID_SCOPE` when it does not exist or is not a directory.
 *
 * @example
 * ```ts
 * await resolveScopeDir('.'); // '/workspace/proj'
 * ```
 */
export async function resolveScopeDir(dir: string): Promise<string> {
  const [{ realpath, stat }, { resolve }] = await Promise.all([
    nodeBuiltin<typeof FsPromises>('node:fs/promises'),
    nodeBuiltin<typeof Path>('node:path'),
  ]);
  let resolved: string;
  try {
    resolved = await realpath(resolve(dir));
  } catch (cause) {
    throw new ClaimCodesError('ERR_INVALID_SCOPE', `The scope directory ${dir} does not exist.`, { cause });
  }
  const stats = await stat(resolved);
  if (!stats.isDirectory()) {
    throw new ClaimCodesError('ERR_INVALID_SCOPE', `The scope ${dir} is not a directory.`);
  }
  return resolved;
}
