// Runs publint and @arethetypeswrong/cli over every publishable package's built output.
// Fails (exit 1) when either tool reports an error for any package.
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
process.exit(failed ? 1 : 0);
