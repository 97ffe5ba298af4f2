// `pnpm bench` (after the in-process vitest benches): every server side by side over HTTP on loopback, in one
// run, rounds interleaved across the targets of a scenario so that a burst of load from the other processes
// on the machine hits them all alike. Prints a table of medians and ratios and regenerates the HTTP section
// of BENCHMARKS.md.
//
// BENCH_QUICK=1      1 s rounds, one round, 10,000 clients in the scale run (a smoke test, not figures)
// BENCH_SECONDS, BENCH_ROUNDS   override the round length and count
// BENCH_ONLY=a,b     only the scenarios whose name starts with one of these (no BENCHMARKS.md rewrite)
// BENCH_WRITE=0|1    skip, or force, the BENCHMARKS.md rewrite (default: full, non-quick runs only)
// BENCH_JSON=path    also write every round as JSON
// BENCH_BASELINE=dir  a built checkout of another commit: its example host runs beside this one
// BENCH_POSTGRES_URL default postgres://postgres@127.0.0.1:5432/test (a schema of its own per server)
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  checkIntrospection,
  clientCredentials,
  clientCredentialsSpread,
  fetchToken,
  introspection,
  type RequestPlan,
  refresh,
  run,
} from './load.js';
import { checkMcpToolCall, mcpToolCall } from './mcp.js';
import { HOST_MAIN, type RunningTarget, startHost, startServer } from './processes.js';
import {
  type Comparison,
  compare,
  consoleTable,
  type Measurement,
  markdownSection,
  type RoundResult,
  replaceSection,
  type Summary,
  summarise,
} from './report.js';
import type { Announcement, Listening, McpAnnouncement } from './servers/common.js';

const quick = process.env['BENCH_QUICK'] === '1';
const seconds = Number(process.env['BENCH_SECONDS'] ?? (quick ? 1 : 2));
const rounds = Number(process.env['BENCH_ROUNDS'] ?? (quick ? 1 : 3));
const warmupSeconds = 1;
const connections = 32;
const only = process.env['BENCH_ONLY']
  ?.split(',')
  .map((entry) => entry.trim())
  .filter(Boolean);
const scaleClients = quick ? 10_000 : 100_000;
const postgresUrl = process.env['BENCH_POSTGRES_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';
const here = fileURLToPath(new URL('.', import.meta.url));
/**
 * BENCH_BASELINE=<checkout>: a built checkout of another commit (e.g. `git archive main | tar -x`, install,
 * build); its example host joins the client_credentials and introspection scenarios, so before and after
 * are measured side by side in the same run.
 */
const baseline = process.env['BENCH_BASELINE'];
const baselineMain = baseline ? join(baseline, 'examples/host/dist/main.js') : undefined;
const repoRoot = join(here, '../..');

/** A server of a scenario; `A` is what it announces (a token server's announcement unless said otherwise). */
interface Target<A extends Listening = Announcement> {
  readonly name: string;
  start(): Promise<RunningTarget<A>>;
  /** The request to send, built once the server announced itself. */
  plan(running: RunningTarget<A>): Promise<RequestPlan> | RequestPlan;
}

interface Scenario {
  readonly name: string;
  // Targets announcing different things side by side: each `plan` is only ever given what its own `start`
  // returned, and TypeScript checks method parameters both ways, so one list holds them all.
  readonly targets: readonly Target<Listening>[];
}

const REFRESH_SEEDS = 1024;
const postgresEnv = { BENCH_POSTGRES_URL: postgresUrl };
const refreshPlan = (running: RunningTarget) =>
  refresh(running.announcement, [...(running.announcement.refreshTokens ?? [])]);

const floor = (alg: string, signer: 'node' | 'jose'): Target => ({
  name: `floor (${signer === 'node' ? 'node:crypto' : 'jose'})`,
  start: () => startServer('floor', { BENCH_ALG: alg, BENCH_SIGNER: signer }),
  plan: (running) => clientCredentials(running.announcement),
});
const host = (alg: 'ES256' | 'HS256'): Target => ({
  name: 'Keyhold example host (SQLite)',
  start: () => startHost({ alg }),
  plan: (running) => clientCredentials(running.announcement),
});
const baselineHost = (alg: 'ES256' | 'HS256'): Target[] =>
  baselineMain
    ? [
        {
          name: 'Keyhold example host (SQLite), baseline',
          start: () => startHost({ alg, main: baselineMain }),
          plan: (running) => clientCredentials(running.announcement),
        },
      ]
    : [];
const introspectHost = (name: string, main?: string): Target => ({
  name,
  start: () => startHost({ alg: 'ES256', ...(main ? { main } : {}) }),
  plan: async (running) => {
    const token = await fetchToken(running.announcement);
    await checkIntrospection(running.announcement, token);
    return introspection(running.announcement, token);
  },
});
const embedded = (alg: string, store: string): Target => ({
  name: `Keyhold embedded (${store})`,
  start: () => startServer('embedded', { BENCH_ALG: alg, BENCH_STORE: store, ...postgresEnv }),
  plan: (running) => clientCredentials(running.announcement),
});
const oidcProvider: Target = {
  name: 'oidc-provider 9 (memory adapter)',
  start: () => startServer('oidc', {}),
  plan: (running) => clientCredentials(running.announcement),
};
const oidcOpaque: Target = {
  name: 'oidc-provider 9 (memory adapter), opaque',
  start: () => startServer('oidc', {}),
  plan: async (running) => {
    // oidc-provider refuses to introspect JWT access tokens: its own opaque kind is what it can answer.
    const token = await fetchToken(
      running.announcement,
      `&resource=${encodeURIComponent(`${running.announcement.url}/opaque`)}`,
    );
    await checkIntrospection(running.announcement, token);
    return introspection(running.announcement, token);
  },
};

const mcpHost: Target<Announcement & McpAnnouncement> = {
  name: 'Keyhold example host (SQLite)',
  start: () => startHost({ alg: 'ES256', machineClients: true }),
  plan: async (running) => {
    // A client_credentials token of the machine client: what an SDK v2 client's ClientCredentialsProvider
    // would hold, obtained once before the load.
    const token = await fetchToken(running.announcement);
    await checkMcpToolCall(running.announcement, running.announcement.mcpPath, token);
    return mcpToolCall(running.announcement.mcpPath, token);
  },
};
const mcpSdk: Target<McpAnnouncement> = {
  name: 'MCP SDK v2 (no auth)',
  start: () => startServer<McpAnnouncement>('mcp-sdk', {}),
  plan: async (running) => {
    await checkMcpToolCall(running.announcement, running.announcement.mcpPath);
    return mcpToolCall(running.announcement.mcpPath);
  },
};

const scaleTarget = (count: number, cache: boolean) =>
  `Keyhold embedded, ${count.toLocaleString('en-US')} registered clients, client cache ${cache ? 'on' : 'off'}`;

const scenarios: Scenario[] = [
  {
    name: 'client_credentials ES256',
    targets: [
      floor('ES256', 'node'),
      floor('ES256', 'jose'),
      host('ES256'),
      embedded('ES256', 'memory'),
      oidcProvider,
      ...baselineHost('ES256'),
    ],
  },
  {
    name: 'client_credentials HS256',
    targets: [
      floor('HS256', 'node'),
      floor('HS256', 'jose'),
      host('HS256'),
      embedded('HS256', 'memory'),
      ...baselineHost('HS256'),
    ],
  },
  {
    name: 'introspection',
    targets: [
      introspectHost('Keyhold example host (SQLite), ES256 JWT'),
      oidcOpaque,
      ...(baselineMain
        ? [introspectHost('Keyhold example host (SQLite), ES256 JWT, baseline', baselineMain)]
        : []),
    ],
  },
  {
    name: 'refresh_token ES256',
    targets: [
      ...(['memory', 'sqlite', 'postgres'] as const).map(
        (store): Target => ({
          name: `Keyhold embedded (${store})`,
          start: () =>
            startServer('embedded', {
              BENCH_ALG: 'ES256',
              BENCH_STORE: store,
              BENCH_REFRESH_SEEDS: String(REFRESH_SEEDS),
              ...postgresEnv,
            }),
          plan: refreshPlan,
        }),
      ),
      {
        name: 'Keyhold example host (SQLite)',
        start: () => startHost({ alg: 'ES256', refreshSeeds: REFRESH_SEEDS }),
        plan: refreshPlan,
      },
      {
        name: 'Keyhold example host (PostgreSQL)',
        start: () => startHost({ alg: 'ES256', store: 'postgres', refreshSeeds: REFRESH_SEEDS, postgresUrl }),
        plan: refreshPlan,
      },
    ],
  },
  {
    name: 'mcp tools/call',
    targets: [mcpSdk, mcpHost],
  },
  {
    name: 'scale: client_credentials ES256, SQLite, 1,000 active clients',
    targets: [true, false].flatMap((cache) =>
      [1_000, scaleClients].map(
        (count): Target => ({
          name: scaleTarget(count, cache),
          start: () =>
            startServer('embedded', {
              BENCH_ALG: 'ES256',
              BENCH_STORE: 'sqlite',
              BENCH_CLIENTS: String(count),
              ...(cache ? {} : { BENCH_CLIENT_CACHE_TTL: '0' }),
            }),
          plan: (running) => clientCredentialsSpread(running.announcement, 1_000),
        }),
      ),
    ),
  },
];

const loadSamples: number[] = [];
const sampler = setInterval(() => loadSamples.push(loadavg()[0] ?? 0), 2_000);
loadSamples.push(loadavg()[0] ?? 0);
const started = Date.now();

if (!existsSync(HOST_MAIN)) {
  console.error(`bench: ${HOST_MAIN} is missing; run \`pnpm run build\` first`);
  process.exit(1);
}

const measurements: Measurement[] = [];
for (const scenario of scenarios) {
  if (only && !only.some((prefix) => scenario.name.startsWith(prefix))) continue;
  console.log(`\n# ${scenario.name}`);
  const running: {
    target: Target<Listening>;
    server: RunningTarget<Listening>;
    plan: RequestPlan | undefined;
    rounds: RoundResult[];
  }[] = [];
  try {
    for (const target of scenario.targets) {
      const server = await target.start();
      const entry = {
        target,
        server,
        plan: undefined as RequestPlan | undefined,
        rounds: [] as RoundResult[],
      };
      running.push(entry);
      entry.plan = await target.plan(server);
    }
    for (const entry of running)
      await run(entry.server.announcement, entry.plan!, warmupSeconds, connections);
    for (let round = 0; round < rounds; round++) {
      for (const entry of running) {
        const result = await run(entry.server.announcement, entry.plan!, seconds, connections);
        entry.rounds.push(result);
        console.log(
          `  round ${round + 1}  ${entry.target.name.padEnd(44)} ${result.rps.toFixed(0).padStart(6)} req/s  p99 ${result.p99} ms${result.failures ? `  FAILED ${result.failures}` : ''}  (load ${(loadavg()[0] ?? 0).toFixed(2)})`,
        );
      }
    }
  } finally {
    for (const entry of running) await entry.server.stop();
  }
  for (const entry of running) {
    measurements.push({ scenario: scenario.name, target: entry.target.name, rounds: entry.rounds });
  }
}

/** Memory per live refresh token in the memory store, measured in a child with --expose-gc. */
async function memoryPerRefreshToken(): Promise<string> {
  const child = spawn(process.execPath, ['--expose-gc', join(here, 'memory.js')], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  await new Promise((resolve) => child.once('exit', resolve));
  return output.trim();
}

let memory = '';
if (!only || only.some((prefix) => 'memory'.startsWith(prefix))) {
  memory = await memoryPerRefreshToken();
  console.log(`\n# memory\n${memory}`);
}
clearInterval(sampler);
loadSamples.push(loadavg()[0] ?? 0);

const summaries: Summary[] = measurements.map(summarise);
const host256 = 'Keyhold example host (SQLite)';
const comparisons = [
  ...['client_credentials ES256', 'client_credentials HS256'].flatMap((scenario) => [
    compare(summaries, scenario, host256, 'floor (node:crypto)', { metric: 'rps', atLeast: 0.75 }),
    compare(summaries, scenario, host256, 'floor (jose)', { metric: 'rps', atLeast: 0.75 }),
    compare(summaries, scenario, host256, 'floor (node:crypto)', { metric: 'p99', atMost: 1.5 }),
    compare(summaries, scenario, host256, 'floor (jose)', { metric: 'p99', atMost: 1.5 }),
  ]),
  compare(summaries, 'client_credentials ES256', host256, 'oidc-provider 9 (memory adapter)', {
    metric: 'rps',
    atLeast: 2.2,
  }),
  compare(
    summaries,
    'introspection',
    'Keyhold example host (SQLite), ES256 JWT',
    'oidc-provider 9 (memory adapter), opaque',
    { metric: 'rps', atLeast: 2 },
  ),
  compare(summaries, 'mcp tools/call', host256, 'MCP SDK v2 (no auth)', { metric: 'rps', atLeast: 1 }),
  ...[true, false].map((cache) =>
    compare(
      summaries,
      'scale: client_credentials ES256, SQLite, 1,000 active clients',
      scaleTarget(scaleClients, cache),
      scaleTarget(1_000, cache),
      { metric: 'rps', atLeast: 0.9 },
    ),
  ),
  ...['client_credentials ES256', 'client_credentials HS256'].map((scenario) =>
    compare(summaries, scenario, host256, 'Keyhold example host (SQLite), baseline', {
      metric: 'rps',
      atLeast: 1,
    }),
  ),
  compare(
    summaries,
    'introspection',
    'Keyhold example host (SQLite), ES256 JWT',
    'Keyhold example host (SQLite), ES256 JWT, baseline',
    { metric: 'rps', atLeast: 1 },
  ),
].filter((comparison): comparison is Comparison => comparison !== undefined);

console.log(`\n${consoleTable(summaries)}\n`);
for (const comparison of comparisons) {
  console.log(
    `${comparison.met ? 'met    ' : 'NOT MET'}  ${comparison.scenario}: ${comparison.label} = ${comparison.value.toFixed(2)} (target ${comparison.target})`,
  );
}
const elapsed = Math.round((Date.now() - started) / 1000);
console.log(`\nload average samples: ${loadSamples.map((load) => load.toFixed(2)).join(' ')}; ${elapsed} s`);

const environment = {
  date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
  cores: cpus().length,
  cpuModel: cpus()[0]?.model.trim() ?? 'unknown CPU',
  memoryGiB: Math.round(totalmem() / 2 ** 30),
  node: process.versions.node,
  loadSamples,
  durationSeconds: seconds,
  connections,
  rounds,
  quick,
};
const memorySection = memory ? `### Memory per live refresh token (memory store)\n\n${memory}` : '';
const write = process.env['BENCH_WRITE'] === '1' || (process.env['BENCH_WRITE'] !== '0' && !quick && !only);
if (write) {
  const path = join(repoRoot, 'BENCHMARKS.md');
  const section = markdownSection(environment, summaries, comparisons, memorySection);
  writeFileSync(path, replaceSection(readFileSync(path, 'utf8'), section));
  console.log(`BENCHMARKS.md: HTTP section rewritten`);
}
if (process.env['BENCH_JSON']) {
  writeFileSync(
    process.env['BENCH_JSON'],
    `${JSON.stringify({ environment, measurements, summaries, comparisons, memory }, null, 2)}\n`,
  );
}
