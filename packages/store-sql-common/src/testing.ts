import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

function resolvesAtRuntime(packageDir: string, specifier: string): boolean {
  try {
    createRequire(join(packageDir, 'package.json')).resolve(specifier);
    return true;
  } catch {
    return false;
  }
}

/**
 * Child-process tests of a store run the built package, as a host would. Builds what is missing: the
 * workspace packages it imports at run time when any of their `dist/` is absent, and the package's own
 * JavaScript when it is missing or older than a source file (JavaScript only: the declarations do not
 * matter to a child). Test-only: it shells out to `pnpm` in a workspace checkout.
 *
 * @example
 * ```ts
 * const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');
 * beforeAll(() => ensureBuiltPackage(packageDir));
 * ```
 */
export function ensureBuiltPackage(packageDir: string): void {
  const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as {
    name: string;
    dependencies?: Record<string, string>;
  };
  const workspaceDependencies = Object.keys(manifest.dependencies ?? {}).filter((name) =>
    name.startsWith('@keyhold/'),
  );
  if (!workspaceDependencies.every((name) => resolvesAtRuntime(packageDir, name))) {
    execFileSync('pnpm', ['--filter', `${manifest.name}^...`, 'run', 'build'], {
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

export { DOMAIN_PACKAGES, expectDomainPackagesTypeOnly, runtimeImports } from './domain-dependencies.js';
export type { RunStatement } from './migration-scenarios.js';
export {
  expectTokenVaultV1RowsReadBack,
  expectVersion4RefreshTokensWork,
  writeTokenVaultV1Rows,
} from './migration-scenarios.js';
export type { WriteBurstOptions } from './write-burst.js';
export { runWriteBurst } from './write-burst.js';
