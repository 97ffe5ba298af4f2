// Open-loop load over loopback HTTP: the registry API (built dist) on node:http through adapter-node, and
// exactly BENCH_REQUESTS single-provider lookups (default 5000, at most 20000) sent at BENCH_RATE per second
// (default 500) over keep-alive connections. Latency is measured from each request's scheduled send time, so
// a stalled server cannot hide queueing (no coordinated omission). Prints p50/p90/p99/max.
// Run: pnpm --filter @keyhold/core --filter @keyhold/adapter-node --filter @keyhold/registry-client build
//      node packages/registry-client/bench/http-latency.mjs
import { Agent, createServer, request } from 'node:http';
import { createNodeListener } from '@keyhold/adapter-node/legacy';
import { loadBundledProviders } from '@keyhold/registry-client';
import { createRegistryApi } from '@keyhold/registry-client/server';

const total = Math.min(Number(process.env.BENCH_REQUESTS ?? 5000), 20_000);
const rate = Math.min(Number(process.env.BENCH_RATE ?? 500), 5000);
const deadlineMs = (total / rate) * 1000 + 15_000;

// The limit is lifted so the run measures lookups, but every request still goes through the limiter.
const api = createRegistryApi({ rateLimitPerWindow: 1_000_000_000 });
const server = createServer(createNodeListener(api));
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const { port } = server.address();
const agent = new Agent({ keepAlive: true, maxSockets: 32 });
const ids = Object.keys(loadBundledProviders());

function lookup(id) {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: `/api/providers/${id}`, agent }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`HTTP ${res.statusCode}`))));
    });
    req.on('error', reject);
    req.end();
  });
}

// Warm the connections and the JIT outside the measured window.
for (let i = 0; i < 200; i++) await lookup(ids[i % ids.length]);

const latencies = [];
const serviceTimes = [];
let failures = 0;
const start = performance.now();
const pending = [];
await new Promise((resolve, reject) => {
  const guard = setTimeout(() => reject(new Error('benchmark exceeded its time bound')), deadlineMs);
  let sent = 0;
  const tick = setInterval(() => {
    const due = Math.min(total, Math.floor(((performance.now() - start) * rate) / 1000) + 1);
    for (; sent < due; sent++) {
      const scheduled = start + (sent * 1000) / rate;
      const sentAt = performance.now();
      pending.push(
        lookup(ids[sent % ids.length]).then(
          () => {
            const now = performance.now();
            latencies.push(now - scheduled);
            serviceTimes.push(now - sentAt);
          },
          () => {
            failures += 1;
          },
        ),
      );
    }
    if (sent >= total) {
      clearInterval(tick);
      Promise.all(pending).then(() => {
        clearTimeout(guard);
        resolve();
      });
    }
  }, 1);
});
const elapsedS = (performance.now() - start) / 1000;

latencies.sort((a, b) => a - b);
serviceTimes.sort((a, b) => a - b);
const percentile = (values, p) =>
  values[Math.min(values.length - 1, Math.ceil((p / 100) * values.length) - 1)];
const line = (values) =>
  ['50', '90', '99'].map((p) => `p${p} ${percentile(values, Number(p)).toFixed(2)} ms`).join('  ') +
  `  max ${values.at(-1).toFixed(2)} ms`;
console.log(
  `registry GET /api/providers/<id> over loopback: ${latencies.length} ok, ${failures} failed, ` +
    `${(latencies.length / elapsedS).toFixed(0)} req/s achieved (target ${rate})`,
);
console.log(`from the scheduled send time (includes the 1 ms pacing timer): ${line(latencies)}`);
console.log(`from the actual send:                                         ${line(serviceTimes)}`);
agent.destroy();
server.close();
process.exitCode = failures > 0 ? 1 : 0;
