// Start-up cost of webhook discovery, measured the way a host pays it: a fresh Node process imports the
// built package and creates a handler over the example host's tool modules (one tagged source file, one
// untagged), which discovers their routes.
// Run after `pnpm run build`: `node packages/webhook-kit/bench/startup.mjs [runs]`.
// STARTUP_DIST=/path/to/dist/index.js measures another build (say, an older version) the same way.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const hostTools = fileURLToPath(new URL('../../../examples/host/tools/', import.meta.url));

if (process.env.STARTUP_CHILD === '1') {
  const start = performance.now();
  const { createWebhookHandler } = await import(process.env.STARTUP_DIST ?? '../dist/index.js');
  const imported = performance.now();
  // Stand-ins with the names and methods of the host's classes (the host bundles the real ones).
  class Notes {
    add() {}
    list() {}
    handleIncoming() {}
  }
  class Activity {
    onPush() {}
    recentPushes() {}
    async *whoAmI() {}
  }
  const { routes } = createWebhookHandler({
    modules: [
      {
        toolModuleId: 'notes',
        displayName: 'Notes',
        sourcePath: `${hostTools}workspace-a/notes.ts`,
        instance: new Notes(),
      },
      {
        toolModuleId: 'activity',
        displayName: 'Activity',
        sourcePath: `${hostTools}workspace-b/activity.ts`,
        instance: new Activity(),
      },
    ],
  });
  const discovered = performance.now();
  if (routes.length !== 2) throw new Error(`expected 2 routes, got ${routes.map((route) => route.key)}`);
  process.stdout.write(JSON.stringify({ import: imported - start, discover: discovered - imported }));
} else {
  const runs = Number(process.argv[2] ?? 15);
  const samples = [];
  for (let run = 0; run < runs; run++) {
    const output = execFileSync(process.execPath, [fileURLToPath(import.meta.url)], {
      env: { ...process.env, STARTUP_CHILD: '1' },
      encoding: 'utf8',
    });
    samples.push(JSON.parse(output));
  }
  const median = (values) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const report = (key) => median(samples.map((sample) => sample[key])).toFixed(1);
  const total = median(samples.map((sample) => sample.import + sample.discover)).toFixed(1);
  console.log(
    `${runs} fresh processes, median ms: import ${report('import')}, discover ${report('discover')}, total ${total}`,
  );
}
