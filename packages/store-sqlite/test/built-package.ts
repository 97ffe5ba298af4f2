import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** This package's folder. */
export const packageDir: string = join(dirname(fileURLToPath(import.meta.url)), '..');

function resolvesAtRuntime(specifier: string): boolean {
  try {
    createRequire(join(packageDir, 'package.json')).resolve(specifier);
    return true;
  } catch {
    return false;
  }
}

/**
 * Child-process tests run the built package, as a host would. Builds what is missing: the workspace
 * packages it imports at run time when their `dist/` is absent, and this package's JavaScript when it is
 * missing or older than a source file (JavaScript only: the declarations do not matter to a child).
 */
export function ensureBuilt(): void {
  if (!resolvesAtRuntime('@keyhold/core')) {
    execFileSync('pnpm', ['--filter', '@keyhold/store-sqlite^...', 'run', 'build'], {
      cwd: packageDir,
      stdio: 'ignore',
    });
  }
  const built = join(packageDir, 'dist/index.js');
  const newestSource = Math.max(
    ...readdirSync(join(packageDir, 'src')).map((f) => statSync(join(packageDir, 'src', f)).mtimeMs),
  );
  if (!existsSync(built) || statSync(built).mtimeMs < newestSource) {
    // Built aside and renamed into place: test files running in parallel never see a half-written file.
    const aside = `dist-build-${process.pid}`;
    execFileSync(
      'pnpm',
      [
        'exec',
        'tsup',
        'src/index.ts',
        '--format',
        'esm',
        '--target',
        'node20',
        '--sourcemap',
        '--out-dir',
        aside,
      ],
      { cwd: packageDir, stdio: 'ignore' },
    );
    mkdirSync(join(packageDir, 'dist'), { recursive: true });
    for (const file of readdirSync(join(packageDir, aside))) {
      renameSync(join(packageDir, aside, file), join(packageDir, 'dist', file));
    }
    rmSync(join(packageDir, aside), { recursive: true, force: true });
  }
}
