// Runs publint and @arethetypeswrong/cli over every publishable package's built output, and checks what
// `npm pack` would publish: LICENSE, README.md, CHANGELOG.md, every file the exports map names, no sources
// or tests.
// Fails (exit 1) when any check reports an error for any package.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const packagesDir = join(root, 'packages');
let failed = false;

for (const name of readdirSync(packagesDir).sort()) {
  const dir = join(packagesDir, name);
  let manifest;
  try {
    manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  } catch {
    continue;
  }
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

for (const name of readdirSync(packagesDir).sort()) {
  const dir = join(packagesDir, name);
  let manifest;
  try {
    manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  } catch {
    continue;
  }
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
process.exit(failed ? 1 : 0);
