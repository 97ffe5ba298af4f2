// Runs vitest and ends with one plain summary line ("Tests: N passed, N failed, N skipped") that CI reads.
// Extra arguments are passed to vitest; the exit code is vitest's.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const results = join(root, 'node_modules/.cache/vitest-results.json');
rmSync(results, { force: true });
const run = spawnSync(
  join(root, 'node_modules/.bin/vitest'),
  ['run', '--reporter=default', '--reporter=json', `--outputFile.json=${results}`, ...process.argv.slice(2)],
  { stdio: 'inherit', cwd: root },
);
if (existsSync(results)) {
  const report = JSON.parse(readFileSync(results, 'utf8'));
  const skipped = report.numPendingTests + report.numTodoTests;
  console.log(
    `\nTests: ${report.numPassedTests} passed, ${report.numFailedTests} failed, ${skipped} skipped`,
  );
} else {
  console.log('\nTests: 0 passed, 1 failed');
}
process.exit(run.status ?? 1);
