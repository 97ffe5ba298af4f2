import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildSync } from 'esbuild';

/**
 * The file URL of {@link runWriteBurst} compiled to JavaScript, for a crash test's child process to import:
 * Node runs no TypeScript, and this package is private, so no built copy of it exists. Compiled into the
 * system's temporary folder, one file per test process.
 *
 * @example
 * ```ts
 * const child = spawn(process.execPath, [fixture, writeBurstModuleUrl(), databasePath]);
 * // in the fixture: const { runWriteBurst } = await import(process.argv[2]);
 * ```
 */
export function writeBurstModuleUrl(): string {
  const outfile = join(tmpdir(), `keyhold-write-burst-${process.pid}.mjs`);
  buildSync({
    entryPoints: [fileURLToPath(new URL('./write-burst.ts', import.meta.url))],
    outfile,
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'silent',
  });
  return pathToFileURL(outfile).href;
}
