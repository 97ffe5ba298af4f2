// Runs publint and @arethetypeswrong/cli over every publishable package's built output, and checks what
// `npm pack` would publish: LICENSE, README.md, CHANGELOG.md, every file the exports map names, no sources
// or tests, and no import of a private workspace package (those are bundled, never installed).
// Fails (exit 1) when any check reports an error for any package.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const packagesDir = join(root, 'packages');

/** Every workspace package under packages/, in name order, with its manifest. */
const workspacePackages = readdirSync(packagesDir)
  .sort()
  .map((name) => ({ name, dir: join(packagesDir, name) }))
  .filter(({ dir }) => existsSync(join(dir, 'package.json')))
  .map((entry) => ({
    ...entry,
    manifest: JSON.parse(readFileSync(join(entry.dir, 'package.json'), 'utf8')),
  }));

let failed = false;

for (const { dir, manifest } of workspacePackages) {
  if (manifest.private) continue;
  for (const [tool, args] of [
    ['publint', ['--strict']],
    ['attw', ['--pack', '.', '--profile', 'esm-only', '--format', 'ascii']],
  ]) {
    try {
      execFileSync(join(root, 'node_modules/.bin', tool), args, {
        cwd: dir,
        stdio: 'pipe',
        encoding: 'utf8',
      });
      console.log(`ok   ${tool.padEnd(8)} ${manifest.name}`);
    } catch (error) {
      failed = true;
      console.log(`FAIL ${tool.padEnd(8)} ${manifest.name}\n${error.stdout ?? ''}${error.stderr ?? ''}`);
    }
  }
}
/** Every file path an `exports` map (or `bin`) points at, without the leading `./`. */
function exportedFiles(manifest) {
  const found = new Set();
  const walk = (value) => {
    if (typeof value === 'string') {
      if (value.startsWith('./') && !value.includes('*')) found.add(value.slice(2));
    } else if (value && typeof value === 'object') {
      for (const entry of Object.values(value)) walk(entry);
    }
  };
  walk(manifest.exports);
  walk(manifest.bin);
  return [...found];
}

for (const { dir, manifest } of workspacePackages) {
  if (manifest.private) continue;
  const problems = [];
  let packed = [];
  try {
    const output = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
      cwd: dir,
      stdio: ['ignore', 'pipe', 'pipe'],
      encoding: 'utf8',
    });
    packed = JSON.parse(output)[0].files.map((file) => file.path);
  } catch (error) {
    problems.push(`npm pack failed: ${error.stderr ?? error.message}`);
  }
  const files = new Set(packed);
  for (const required of [
    'LICENSE',
    'README.md',
    'CHANGELOG.md',
    'package.json',
    ...exportedFiles(manifest),
  ]) {
    if (!files.has(required)) problems.push(`missing ${required}`);
  }
  for (const file of packed) {
    if (/^(src|test|bench)\//.test(file) || /(^|\/)tsconfig[^/]*\.json$/.test(file)) {
      problems.push(`should not be published: ${file}`);
    }
  }
  for (const field of ['license', 'repository', 'homepage', 'bugs', 'description']) {
    if (!manifest[field]) problems.push(`package.json has no ${field}`);
  }
  if (problems.length === 0) {
    console.log(`ok   ${'pack'.padEnd(8)} ${manifest.name} (${packed.length} files)`);
  } else {
    failed = true;
    console.log(`FAIL ${'pack'.padEnd(8)} ${manifest.name}\n  ${problems.join('\n  ')}`);
  }
}

// A private workspace package (`"private": true`) is never published: tsup compiles it into each package
// that lists it in devDependencies. An import of it left in a built .js or .d.ts would fail on install.
const privateNames = workspacePackages
  .filter(({ manifest }) => manifest.private)
  .map(({ manifest }) => manifest.name);

/** Every file under `dir`, recursively. */
function filesUnder(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}

const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)["']([^"']+)["']/g;
for (const { dir, manifest } of workspacePackages) {
  if (manifest.private) continue;
  const problems = [];
  for (const file of filesUnder(join(dir, 'dist')).filter((path) => /\.(c|m)?(js|ts)$/.test(path))) {
    for (const [, specifier] of readFileSync(file, 'utf8').matchAll(SPECIFIER)) {
      const bundled = (privateName) => specifier === privateName || specifier.startsWith(`${privateName}/`);
      if (privateNames.some(bundled))
        problems.push(`${relative(dir, file)} imports the private ${specifier}`);
    }
  }
  if (problems.length === 0) {
    console.log(`ok   ${'bundle'.padEnd(8)} ${manifest.name}`);
  } else {
    failed = true;
    console.log(
      `FAIL ${'bundle'.padEnd(8)} ${manifest.name} (list it in devDependencies so tsup compiles it in)\n  ${problems.join('\n  ')}`,
    );
  }
}
process.exit(failed ? 1 : 0);
