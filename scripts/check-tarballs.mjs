// Packs every public package the way a release does (`pnpm pack`, which rewrites `workspace:` ranges to the
// versions being published; `npm pack` would keep them and npm then refuses the tarball with
// EUNSUPPORTEDPROTOCOL), installs all the tarballs with plain `npm install` into a fresh project outside the
// workspace, and imports every entry of every package's `exports` map under Node, then runs each `bin` with
// `--help`. Fails (exit 1) on a `workspace:` range left in a tarball, an install that fails, or an entry that
// does not load. Run after `pnpm run build`; `--keep` leaves the temporary project for a look.
import { execFile } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = new URL('..', import.meta.url).pathname;
const keep = process.argv.includes('--keep');
const started = Date.now();
const failures = [];

function fail(message) {
  failures.push(message);
  console.log(`FAIL ${message}`);
}

const rootManifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const packages = readdirSync(join(root, 'packages'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && existsSync(join(root, 'packages', entry.name, 'package.json')))
  .map((entry) => {
    const dir = join(root, 'packages', entry.name);
    return { dir, manifest: JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) };
  })
  .filter(({ manifest }) => !manifest.private)
  .sort((a, b) => a.manifest.name.localeCompare(b.manifest.name));

// The workspace's pnpm: the one running this script (`pnpm run verify`), else the pinned packageManager.
// A standalone pnpm (@pnpm/exe) is a binary of its own; the npm package's is a script for this Node.
const execPath = process.env.npm_execpath ?? '';
const pnpm = !/pnpm/.test(execPath)
  ? { command: 'npx', args: ['-y', rootManifest.packageManager] }
  : /\.[cm]?js$/.test(execPath)
    ? { command: process.execPath, args: [execPath] }
    : { command: execPath, args: [] };

for (const { dir, manifest } of packages) {
  const missing = entryFiles(manifest).filter((file) => !existsSync(join(dir, file)));
  if (missing.length > 0) {
    console.log(`${manifest.name} is not built (${missing.join(', ')} missing): run pnpm run build first`);
    process.exit(1);
  }
}

const work = mkdtempSync(join(tmpdir(), 'keyhold-tarballs-'));
const tarballDir = join(work, 'tarballs');
const project = join(work, 'project');
try {
  // 1. Pack, a few at a time: each pack is a process of its own.
  const tarballs = new Map();
  await inBatches(packages, 4, async ({ dir, manifest }) => {
    const { stdout } = await run(pnpm.command, [...pnpm.args, 'pack', '--pack-destination', tarballDir], {
      cwd: dir,
      encoding: 'utf8',
    });
    const file = stdout.trim().split('\n').pop()?.trim();
    if (!file?.endsWith('.tgz') || !existsSync(file))
      throw new Error(`no tarball for ${manifest.name}:\n${stdout}`);
    tarballs.set(manifest.name, file);
  });

  // 2. Every range in every tarball's manifest must be one npm understands, and point at what is released.
  const versions = new Map(packages.map(({ manifest }) => [manifest.name, manifest.version]));
  const packed = new Map();
  for (const [name, file] of tarballs) {
    const { stdout } = await run('tar', ['-xzOf', file, 'package/package.json'], { encoding: 'utf8' });
    const manifest = JSON.parse(stdout);
    packed.set(name, manifest);
    for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies', 'devDependencies']) {
      for (const [dependency, range] of Object.entries(manifest[field] ?? {})) {
        if (/^(workspace|link|file|portal|catalog):/.test(range)) {
          fail(`${name}: ${field}.${dependency} is "${range}" in the tarball`);
        } else if (
          field !== 'devDependencies' &&
          dependency.startsWith('@keyhold/') &&
          !versions.has(dependency)
        ) {
          fail(`${name}: ${field}.${dependency} is not a public package of this workspace`);
        }
      }
    }
  }
  console.log(`ok   packed ${tarballs.size} packages with real version ranges`);

  // 3. A fresh npm project with every tarball, plus the optional peers an entry needs (a consumer who uses
  //    `./testing` has vitest, one who uses `./opentelemetry` has the API), at the ranges the packages declare.
  const dependencies = {};
  for (const [name, file] of tarballs) dependencies[name] = `file:${file}`;
  for (const manifest of packed.values()) {
    for (const [peer, range] of Object.entries(manifest.peerDependencies ?? {})) {
      if (!peer.startsWith('@keyhold/') && !(peer in dependencies)) dependencies[peer] = range;
    }
  }
  mkdirSync(project);
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({ name: 'keyhold-tarball-check', private: true, type: 'module', dependencies }, null, 2),
  );
  try {
    await run(
      'npm',
      ['install', '--prefer-offline', '--no-audit', '--no-fund', '--no-package-lock', '--loglevel=error'],
      { cwd: project, encoding: 'utf8', timeout: 240_000, maxBuffer: 16 * 1024 * 1024 },
    );
    console.log(
      `ok   npm install of ${tarballs.size} tarballs (${Object.keys(dependencies).length} dependencies)`,
    );
  } catch (error) {
    fail(`npm install:\n${error.stdout ?? ''}${error.stderr ?? error.message}`);
    throw new Error('stopped');
  }

  // 4. Import every entry in one Node process of the fresh project, each on its own.
  // Entries that hold types only (a store author's contracts): they must load, and have nothing at run time.
  const TYPES_ONLY = new Set(['@keyhold/oauth-core/storage', '@keyhold/token-vault/storage']);
  const specifiers = [];
  for (const manifest of [...packed.values()].sort((a, b) => a.name.localeCompare(b.name))) {
    for (const [subpath, target] of Object.entries(manifest.exports ?? {})) {
      const specifier = subpath === '.' ? manifest.name : `${manifest.name}/${subpath.slice(2)}`;
      specifiers.push({
        specifier,
        json: JSON.stringify(target).includes('.json"'),
        typesOnly: TYPES_ONLY.has(specifier),
      });
    }
  }
  const importer = `
const results = [];
for (const { specifier, json, typesOnly } of ${JSON.stringify(specifiers)}) {
  try {
    const loaded = json ? await import(specifier, { with: { type: 'json' } }) : await import(specifier);
    const names = Object.keys(loaded);
    if (typesOnly) results.push(names.length === 0 ? { specifier, ok: true, names: 0 } : { specifier, ok: false, error: 'a types-only entry has run-time exports' });
    else results.push(names.length > 0 ? { specifier, ok: true, names: names.length } : { specifier, ok: false, error: 'no exports' });
  } catch (error) {
    results.push({ specifier, ok: false, error: String(error?.stack ?? error) });
  }
}
process.stdout.write(JSON.stringify(results));
`;
  writeFileSync(join(project, 'import-all.mjs'), importer);
  const { stdout } = await run(process.execPath, ['import-all.mjs'], {
    cwd: project,
    encoding: 'utf8',
    timeout: 60_000,
    maxBuffer: 16 * 1024 * 1024,
  });
  for (const result of JSON.parse(stdout)) {
    if (result.ok) console.log(`ok   import ${result.specifier} (${result.names} exports)`);
    else fail(`import ${result.specifier}: ${result.error}`);
  }

  // 5. Every bin runs from the installed package.
  for (const manifest of packed.values()) {
    const bins =
      typeof manifest.bin === 'string' ? { [manifest.name.split('/').pop()]: manifest.bin } : manifest.bin;
    for (const bin of Object.keys(bins ?? {})) {
      try {
        await run(join(project, 'node_modules/.bin', bin), ['--help'], { cwd: project, timeout: 30_000 });
        console.log(`ok   ${bin} --help (${manifest.name})`);
      } catch (error) {
        fail(`${bin} --help: ${error.stderr ?? error.message}`);
      }
    }
  }
} catch (error) {
  if (error.message !== 'stopped') fail(String(error?.stack ?? error));
} finally {
  if (keep) console.log(`kept ${work}`);
  else rmSync(work, { recursive: true, force: true });
}

console.log(
  `${failures.length === 0 ? 'ok  ' : 'FAIL'} tarball check in ${Math.round((Date.now() - started) / 1000)} s`,
);
process.exit(failures.length === 0 ? 0 : 1);

/** Every file an `exports` map (or `bin`) points at, without the leading `./`. */
function entryFiles(manifest) {
  const files = [];
  const walk = (target) => {
    if (typeof target === 'string') files.push(target.replace(/^\.\//, ''));
    else if (target && typeof target === 'object') for (const value of Object.values(target)) walk(value);
  };
  walk(manifest.exports);
  walk(manifest.bin);
  return files;
}

async function inBatches(items, size, task) {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(task));
}
