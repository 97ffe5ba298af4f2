import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

function resolvesAtRuntime(packageDir: string, specifier: string): boolean {
  try {
    createRequire(join(packageDir, 'package.json')).resolve(specifier);
    return true;
  } catch {
    return false;
  }
}

function tsupCli(packageDir: string): string {
  const manifest = createRequire(join(packageDir, 'package.json')).resolve('tsup/package.json');
  const { bin } = JSON.parse(readFileSync(manifest, 'utf8')) as { bin: Record<string, string> };
  return join(dirname(manifest), bin['tsup']!);
}

// A private workspace package is never installed beside the package: tsup compiles its source in, so an
// edit there makes the build as stale as an edit to the package's own source.
function bundledSourceDirs(packageDir: string, devDependencies: Record<string, string> = {}): string[] {
  const require = createRequire(join(packageDir, 'package.json'));
  return Object.keys(devDependencies)
    .filter((name) => name.startsWith('@keyhold/'))
    .map((name) => require.resolve(`${name}/package.json`))
    .filter((file) => (JSON.parse(readFileSync(file, 'utf8')) as { private?: boolean }).private === true)
    .map((file) => join(dirname(file), 'src'));
}

/**
 * Child-process tests of a store run the built package, as a host would. Builds what is missing: the
 * workspace packages it imports at run time when any of their `dist/` is absent, and the package's own
 * JavaScript when it is missing or older than a source file, its own or one of a private workspace package
 * it bundles (JavaScript only: the declarations do not matter to a child). Test-only: it shells out to
 * `pnpm` in a workspace checkout.
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
    devDependencies?: Record<string, string>;
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
    ...[join(packageDir, 'src'), ...bundledSourceDirs(packageDir, manifest.devDependencies)].flatMap((dir) =>
      readdirSync(dir).map((f) => statSync(join(dir, f)).mtimeMs),
    ),
  );
  if (!existsSync(built) || statSync(built).mtimeMs < newestSource) {
    // Built aside and renamed into place: test files running in parallel never see a half-written file.
    const aside = `dist-build-${process.pid}`;
    // tsup's own CLI under this Node, not `pnpm exec`: a test run started with npx has no pnpm on its PATH.
    execFileSync(
      process.execPath,
      [
        tsupCli(packageDir),
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
export { expectGrantSweep } from './grant-sweep-scenario.js';
export type { RunStatement } from './migration-scenarios.js';
export {
  expectTokenVaultV1RowsReadBack,
  expectVersion4RefreshTokensWork,
  writeTokenVaultV1Rows,
} from './migration-scenarios.js';
export type { WriteBurstOptions } from './write-burst.js';
export { runWriteBurst } from './write-burst.js';
export { writeBurstModuleUrl } from './write-burst-module.js';
