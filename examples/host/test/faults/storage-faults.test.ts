import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FaultProxy, startFaultProxy } from '../../../../test-support/fault-proxy.js';
import { freePort } from '../balancer.js';
import { keyhold } from '../cli.js';
import { type HostProcess, startHost } from '../host-process.js';
import { approveInBrowser } from '../oauth-client.js';
import {
  type Answer,
  AnswerLog,
  byStatus,
  createFaultDatabase,
  deleteRedisKeys,
  type FaultDatabase,
  POSTGRES_URL,
  REDIS_URL,
  servicesAvailable,
  sleep,
  tally,
} from './harness.js';

// Two example-host processes on one PostgreSQL database and one Redis, each reached through a proxy the test
// controls, under a small steady load (refresh, introspection, an MCP tool call, client_credentials,
// registration, readiness). Each fault is injected while the load runs: every backend of the database
// terminated, PostgreSQL stalled past every timeout, PostgreSQL "restarted" (every connection dropped, new ones
// refused for a while), Redis dropped the same way, Redis stalled. What must hold: no process exits, every
// request is answered within its timeout (no hang), an outage answers 503 with Retry-After (never 500, never
// a dead process), readiness goes 503 naming the store and back to 200, service comes back within seconds
// without a restart, no acknowledged write is lost and no refresh family is damaged. The figures are printed
// as `FAULT_FIGURES` lines (HARDENING.md, "Database and cache faults").

const available = await servicesAvailable('the storage fault suite');

// Short bounds, so an outage is decided in about a second and the suite stays well under two minutes.
const TIMEOUTS = {
  KEYHOLD_PG_CONNECT_TIMEOUT_MS: '1000',
  KEYHOLD_PG_STATEMENT_TIMEOUT_MS: '1000',
  KEYHOLD_PG_QUERY_TIMEOUT_MS: '1500',
  KEYHOLD_REDIS_COMMAND_TIMEOUT_MS: '500',
  KEYHOLD_REQUEST_TIMEOUT_MS: '3000',
};
/** Every answer must come within the host's request timeout plus this much (a loaded machine, a slow CI). */
const ANSWER_BOUND_MS = Number(TIMEOUTS.KEYHOLD_REQUEST_TIMEOUT_MS) + 2000;
/** Service must be back this soon after the fault ends. */
const RECOVERY_BOUND_MS = 5000;
/** A stall longer than every timeout above. */
const STALL_MS = 4000;
/** How long a "restart" refuses connections. */
const RESTART_MS = 3000;
const WORKERS = 4;
const TENANT = 'demo';
const REDIRECT = 'http://127.0.0.1:1/cb';

interface Instance {
  readonly name: 'A' | 'B';
  readonly host: HostProcess;
  /** The process's own loopback URL (KEYHOLD_PUBLIC_URL is A's, shared by both as behind a balancer). */
  readonly base: string;
  readonly exits: (number | null)[];
}

let db: FaultDatabase;
let pgProxy: FaultProxy;
let redisProxy: FaultProxy;
const instances: Instance[] = [];
let basic = '';
let machineBasic = '';
let mcpUrl = '';

const form = (params: Record<string, string>) => new URLSearchParams(params).toString();
const basicOf = (id: string, secret: string) =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

beforeAll(async () => {
  if (!available) return;
  db = await createFaultDatabase(POSTGRES_URL);
  const pg = new URL(POSTGRES_URL);
  pgProxy = await startFaultProxy({ host: pg.hostname, port: Number(pg.port || 5432) });
  const redis = new URL(REDIS_URL);
  redisProxy = await startFaultProxy({ host: redis.hostname, port: Number(redis.port || 6379) });
  const ports = [await freePort(), await freePort()];
  const publicUrl = `http://127.0.0.1:${ports[0]}`;
  mcpUrl = `${publicUrl}/tenant/${TENANT}/mcp`;
  const dataDir = mkdtempSync(join(tmpdir(), 'keyhold-faults-'));
  const redisVia = new URL(REDIS_URL);
  redisVia.hostname = '127.0.0.1';
  redisVia.port = String(redisProxy.port);
  const env = {
    KEYHOLD_PUBLIC_URL: publicUrl,
    KEYHOLD_ALLOWED_HOSTS: ports.map((port) => `127.0.0.1:${port}`).join(','),
    DATABASE_URL: db.urlVia(pgProxy.port),
    REDIS_URL: redisVia.toString(),
    KEYHOLD_REDIS_PREFIX: `${db.name}:`,
    // Every token request reads its client from the database, so the load touches PostgreSQL each time.
    KEYHOLD_CLIENT_CACHE_TTL_SECONDS: '0',
    KEYHOLD_RATE_LIMIT_TOKEN: '100000/60',
    KEYHOLD_RATE_LIMIT_REGISTER: '100000/60',
    ...TIMEOUTS,
  };
  // One after the other: the first start on an empty database is another suite's subject.
  for (const [i, name] of (['A', 'B'] as const).entries()) {
    const host = await startHost({ ...env, PORT: String(ports[i]) }, dataDir);
    const exits: (number | null)[] = [];
    host.child.on('exit', (code) => exits.push(code));
    instances.push({ name, host, base: `http://127.0.0.1:${ports[i]}`, exits });
  }

  const registered = await fetch(`${instances[0]!.base}/tenant/${TENANT}/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'fault load',
      redirect_uris: [REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
    }),
  });
  expect(registered.status).toBe(201);
  const client = (await registered.json()) as { client_id: string; client_secret: string };
  basic = basicOf(client.client_id, client.client_secret);
  const machine = await keyhold(
    ['clients', 'add', '--grant', 'client_credentials', '--name', 'fault load machine', '--json'],
    { DATABASE_URL: db.directUrl, KEYHOLD_DATA_DIR: dataDir },
  );
  expect(machine.code, machine.stderr).toBe(0);
  const added = JSON.parse(machine.stdout) as { clientId: string; clientSecret: string };
  machineBasic = basicOf(added.clientId, added.clientSecret);
  for (let index = 0; index < WORKERS; index += 1) workers.push(await newWorker(index, client.client_id));
}, 60_000);

afterAll(async () => {
  for (const row of figures) console.log(`FAULT_FIGURES ${JSON.stringify(row)}`);
  await Promise.all(instances.map((instance) => instance.host.stop({ removeData: true })));
  await pgProxy?.close();
  await redisProxy?.close();
  await db?.drop();
  if (db) await deleteRedisKeys(`${db.name}:`);
});

/** One simulated client of the load: its refresh family (the tokens it holds) and its MCP session. */
interface Worker {
  readonly index: number;
  refreshToken: string;
  accessToken: string;
  readonly session: string;
}

const workers: Worker[] = [];
/** Writes that got a 2xx, with the fault under way when they did: each must be found afterwards. */
const acknowledged = {
  notes: [] as { text: string; fault: string }[],
  clients: [] as { id: string; fault: string }[],
};

async function newWorker(index: number, clientId: string): Promise<Worker> {
  const verifier = randomBytes(32).toString('base64url');
  const authorize = new URL(`${instances[0]!.base}/tenant/${TENANT}/authorize`);
  authorize.search = form({
    client_id: clientId,
    response_type: 'code',
    redirect_uri: REDIRECT,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    scope: 'mcp:tools',
    resource: mcpUrl,
    state: `w${index}`,
  });
  const { code } = await approveInBrowser(authorize);
  const issued = await fetch(`${instances[0]!.base}/tenant/${TENANT}/token`, {
    method: 'POST',
    headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
    body: form({ grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: REDIRECT }),
  });
  expect(issued.status).toBe(200);
  const tokens = (await issued.json()) as { access_token: string; refresh_token: string };
  const opened = await mcp(instances[0]!, tokens.access_token, {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: `load-${index}`, version: '1' },
    },
  });
  expect(opened.status).toBe(200);
  await opened.text();
  const session = opened.headers.get('mcp-session-id');
  expect(session).toBeTypeOf('string');
  return { index, refreshToken: tokens.refresh_token, accessToken: tokens.access_token, session: session! };
}

function mcp(
  instance: Instance,
  token: string,
  body: unknown,
  session?: string,
  signal?: AbortSignal,
): Promise<Response> {
  return fetch(`${instance.base}/tenant/${TENANT}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
      ...(session ? { 'mcp-session-id': session } : {}),
    },
    body: JSON.stringify(body),
    ...(signal ? { signal } : {}),
  });
}

/** The JSON-RPC message of an MCP answer, sent as JSON or as one SSE event. */
function rpcMessage(body: string): {
  result?: { isError?: boolean; content?: { text: string }[] };
  error?: unknown;
} {
  const data = body.trimStart().startsWith('{')
    ? body
    : body
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5))
        .join('');
  try {
    return JSON.parse(data);
  } catch {
    return { error: `unreadable answer: ${body.slice(0, 120)}` };
  }
}

/** Readiness answers seen by the load: which stores each 503 named. */
interface ReadyObservation {
  readonly instance: string;
  readonly sentAt: number;
  readonly status: number;
  readonly down: readonly string[];
}

/** One pass of a worker: each kind of request once (readiness aside), alternating the instances. */
async function iteration(worker: Worker, pass: number, log: AnswerLog, fault: string): Promise<void> {
  const at = (step: number) => instances[(worker.index + pass + step) % 2]!;
  let instance = at(0);
  const refreshed = await log.send<{ access_token: string; refresh_token: string }>(
    'refresh',
    instance.name,
    (signal) =>
      fetch(`${instance.base}/tenant/${TENANT}/token`, {
        method: 'POST',
        headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
        body: form({ grant_type: 'refresh_token', refresh_token: worker.refreshToken }),
        signal,
      }),
    (response, body) => (response.status === 200 ? { value: JSON.parse(body) } : {}),
  );
  // A 503 leaves the client with the token it has: it retries with it on the next pass.
  if (refreshed.value) {
    worker.refreshToken = refreshed.value.refresh_token;
    worker.accessToken = refreshed.value.access_token;
  }

  instance = at(1);
  await log.send(
    'introspect',
    instance.name,
    (signal) =>
      fetch(`${instance.base}/tenant/${TENANT}/introspect`, {
        method: 'POST',
        headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
        body: form({ token: worker.accessToken }),
        signal,
      }),
    // A live token must never be reported inactive because the store could not be asked.
    (response, body) =>
      response.status === 200 && (JSON.parse(body) as { active: boolean }).active !== true
        ? { problem: 'a live token introspected as inactive' }
        : {},
  );

  instance = at(0);
  const note = `${fault}-${worker.index}-${pass}-${randomBytes(3).toString('hex')}`;
  const added = await log.send<true>(
    'mcp tools/call',
    instance.name,
    (signal) =>
      mcp(
        instance,
        worker.accessToken,
        {
          jsonrpc: '2.0',
          id: pass + 1,
          method: 'tools/call',
          params: { name: 'add_note', arguments: { text: note } },
        },
        worker.session,
        signal,
      ),
    (response, body) => {
      if (response.status !== 200) return {};
      const message = rpcMessage(body);
      return message.result && !message.result.isError
        ? { value: true }
        : {
            problem: `tool call failed with 200: ${JSON.stringify(message.error ?? message.result).slice(0, 160)}`,
          };
    },
  );
  if (added.value) acknowledged.notes.push({ text: note, fault });

  instance = at(1);
  await log.send('client_credentials', instance.name, (signal) =>
    fetch(`${instance.base}/tenant/${TENANT}/token`, {
      method: 'POST',
      headers: { authorization: machineBasic, 'content-type': 'application/x-www-form-urlencoded' },
      body: form({ grant_type: 'client_credentials' }),
      signal,
    }),
  );

  if (pass % 3 === 0) {
    instance = at(0);
    const created = await log.send<string>(
      'register',
      instance.name,
      (signal) =>
        fetch(`${instance.base}/tenant/${TENANT}/register`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            client_name: `fault ${fault} ${worker.index}-${pass}`,
            redirect_uris: [REDIRECT],
            grant_types: ['authorization_code'],
            response_types: ['code'],
            token_endpoint_auth_method: 'none',
          }),
          signal,
        }),
      (response, body) =>
        response.status === 201 ? { value: (JSON.parse(body) as { client_id: string }).client_id } : {},
    );
    if (created.value) acknowledged.clients.push({ id: created.value, fault });
  }
}

/**
 * What a load balancer does: asks each instance's `/health/ready`, both at once, every 200 ms (apart from
 * the workers, so a worker waiting on a stalled store does not stop the readiness checks).
 */
async function checkReadiness(instance: Instance, log: AnswerLog, ready: ReadyObservation[]): Promise<void> {
  const sentAt = performance.now();
  await log.send('/health/ready', instance.name, (signal) =>
    fetch(`${instance.base}/health/ready`, { signal }).then(async (response) => {
      const body = await response.clone().text();
      let down: string[] = [];
      try {
        down = (JSON.parse(body) as { down?: string[] }).down ?? [];
      } catch {}
      ready.push({ instance: instance.name, sentAt, status: response.status, down });
      return response;
    }),
  );
}

/**
 * Polls until `/health/ready` and a token request succeed at both instances: answers when, or (after
 * `limitMs`) undefined with what the last probes answered.
 */
async function waitForRecovery(limitMs: number): Promise<{ at?: number; last: string }> {
  const until = performance.now() + limitMs;
  let last = '';
  while (performance.now() < until) {
    const probes = await Promise.all(
      instances.flatMap((instance) =>
        [
          fetch(`${instance.base}/health/ready`, { signal: AbortSignal.timeout(2000) }),
          fetch(`${instance.base}/tenant/${TENANT}/token`, {
            method: 'POST',
            headers: { authorization: machineBasic, 'content-type': 'application/x-www-form-urlencoded' },
            body: form({ grant_type: 'client_credentials' }),
            signal: AbortSignal.timeout(2000),
          }),
        ].map((answer, i) =>
          answer.then(
            async (response) => {
              await response.arrayBuffer();
              return `${instance.name} ${i ? 'token' : 'ready'} ${response.status}`;
            },
            (error: Error) => `${instance.name} ${i ? 'token' : 'ready'} ${error.message}`,
          ),
        ),
      ),
    );
    last = probes.join(', ');
    if (probes.every((probe) => probe.endsWith(' 200'))) return { at: performance.now(), last };
    await sleep(100);
  }
  return { last };
}

/** What `list_notes` answers at `instance` (the newest notes), as text. */
async function listNotes(instance: Instance): Promise<string> {
  const listed = await mcp(
    instance,
    workers[0]!.accessToken,
    { jsonrpc: '2.0', id: 0, method: 'tools/call', params: { name: 'list_notes', arguments: {} } },
    workers[0]!.session,
  );
  expect(listed.status).toBe(200);
  const result = rpcMessage(await listed.text()).result;
  expect(result?.isError).not.toBe(true);
  return (result?.content ?? []).map((part) => part.text).join('\n');
}

/** One row of the figures table. */
interface FaultFigures {
  fault: string;
  heldMs: number;
  sent: number;
  byStatus: Record<string, number>;
  /** The same, per kind of request. */
  byRequest: Record<string, Record<string, number>>;
  maxLatencyMs: number;
  recoveryMs: number;
  writesAcknowledged: number;
  dataLost: string;
}
const figures: FaultFigures[] = [];

interface FaultRun {
  readonly answers: Answer[];
  /** Sent from the injection until service was back. */
  readonly during: Answer[];
  /** Sent once service had been back for half a second. */
  readonly after: Answer[];
  readonly ready: ReadyObservation[];
  readonly duringReady: ReadyObservation[];
  /** Infinity when service did not come back. */
  readonly recoveryMs: number;
  /** What the recovery probes answered last. */
  readonly lastProbe: string;
}

/**
 * Runs the load, injects the fault after a baseline, holds it `holdMs`, ends it, waits for recovery, lets
 * the load run a second more, and stops it. Every loop is bounded in time and count.
 */
async function underLoad(
  fault: string,
  steps: { inject(): Promise<void> | void; holdMs: number; end(): Promise<void> | void },
): Promise<FaultRun> {
  const log = new AnswerLog();
  const ready: ReadyObservation[] = [];
  let stop = false;
  const loops = workers.map(async (worker) => {
    for (let pass = 0; !stop && pass < 500; pass += 1) {
      await iteration(worker, pass, log, fault);
      await sleep(50);
    }
  });
  loops.push(
    (async () => {
      for (let round = 0; !stop && round < 500; round += 1) {
        await Promise.all(instances.map((instance) => checkReadiness(instance, log, ready)));
        await sleep(200);
      }
    })(),
  );
  let injectedAt = 0;
  let endedAt = 0;
  let recoveredAt = 0;
  let lastProbe = '';
  try {
    await sleep(800);
    injectedAt = performance.now();
    await steps.inject();
    await sleep(steps.holdMs);
    await steps.end();
    endedAt = performance.now();
    const recovery = await waitForRecovery(RECOVERY_BOUND_MS * 3);
    lastProbe = recovery.last;
    recoveredAt = recovery.at ?? Number.POSITIVE_INFINITY;
    if (recovery.at !== undefined) await sleep(1500);
  } finally {
    stop = true;
    await Promise.all(loops);
  }
  const recoveryMs = Math.round(recoveredAt - endedAt);
  const stoppedAt = performance.now();
  const during = log.between(injectedAt, Math.min(recoveredAt, stoppedAt));
  figures.push({
    fault,
    heldMs: Math.round(endedAt - injectedAt),
    sent: during.length,
    byStatus: byStatus(during),
    byRequest: Object.fromEntries(
      [...new Set(during.map((answer) => answer.op))].map((op) => [
        op,
        byStatus(during.filter((answer) => answer.op === op)),
      ]),
    ),
    maxLatencyMs: Math.round(Math.max(0, ...log.answers.map((answer) => answer.latencyMs))),
    recoveryMs,
    writesAcknowledged: 0,
    dataLost: 'not checked',
  });
  return {
    answers: log.answers,
    during,
    after: log.between(recoveredAt + 500, Number.POSITIVE_INFINITY),
    ready,
    duringReady: ready.filter((seen) => seen.sentAt >= injectedAt && seen.sentAt < recoveredAt),
    recoveryMs,
    lastProbe,
  };
}

/** What must hold for every fault: no exit, no hang, no 500/502, 503s with Retry-After, recovery in time. */
function expectSurvived(run: FaultRun): void {
  for (const instance of instances) {
    expect(
      instance.exits,
      `instance ${instance.name} exited:\n${instance.host.output().slice(-2000)}`,
    ).toEqual([]);
    expect(instance.host.child.exitCode).toBeNull();
  }
  // Soft: one run reports every kind of wrong answer at once.
  expect
    .soft(tally(run.answers.filter((answer) => ![200, 201, 503].includes(answer.status) || answer.problem)))
    .toEqual([]);
  expect.soft(tally(run.answers.filter((answer) => answer.latencyMs > ANSWER_BOUND_MS))).toEqual([]);
  expect
    .soft(
      tally(
        run.answers.filter((answer) => answer.status === 503 && !/^[1-9]\d*$/.test(answer.retryAfter ?? '')),
      ),
    )
    .toEqual([]);
  expect(run.recoveryMs, `recovery probes: ${run.lastProbe}`).toBeLessThanOrEqual(RECOVERY_BOUND_MS);
  // Once back, everything is served again, without a restart.
  expect(run.after.length).toBeGreaterThan(0);
  expect(tally(run.after.filter((answer) => answer.status >= 300))).toEqual([]);
}

/** Readiness said 503 naming `store` during the fault, and 200 once it was over. */
function expectReadiness(run: FaultRun, store: 'postgres' | 'redis'): void {
  const named = run.duringReady.filter(
    (seen) => seen.status === 503 && seen.down.some((down) => down === store || down.startsWith(`${store}:`)),
  );
  expect(named.length, `readiness during the fault: ${JSON.stringify(run.duringReady)}`).toBeGreaterThan(0);
  for (const instance of instances) {
    expect(run.ready.filter((seen) => seen.instance === instance.name).at(-1)?.status).toBe(200);
  }
}

describe.skipIf(!available)('two host instances survive their database and cache', () => {
  it('every backend of the database terminated (twice, a second apart)', async () => {
    const run = await underLoad('terminate backends', {
      inject: async () => {
        expect(await db.terminateBackends()).toBeGreaterThan(0);
      },
      holdMs: 1000,
      end: async () => {
        await db.terminateBackends();
      },
    });
    expectSurvived(run);
  }, 40_000);

  it(`PostgreSQL stalled for ${STALL_MS} ms (packets stopped), longer than every timeout`, async () => {
    const run = await underLoad('PostgreSQL stall', {
      inject: () => pgProxy.stall(),
      holdMs: STALL_MS,
      end: () => pgProxy.heal(),
    });
    expectSurvived(run);
    expect(run.during.filter((answer) => answer.status === 503).length).toBeGreaterThan(0);
    expectReadiness(run, 'postgres');
  }, 40_000);

  it(`PostgreSQL restarted: every connection dropped, new ones refused for ${RESTART_MS} ms`, async () => {
    const run = await underLoad('PostgreSQL restart', {
      inject: () => pgProxy.refuse(),
      holdMs: RESTART_MS,
      end: () => pgProxy.heal(),
    });
    expectSurvived(run);
    expect(run.during.filter((answer) => answer.status === 503).length).toBeGreaterThan(0);
    expectReadiness(run, 'postgres');
  }, 40_000);

  it(`Redis dropped: every connection dropped, new ones refused for ${RESTART_MS} ms`, async () => {
    const run = await underLoad('Redis drop', {
      inject: () => redisProxy.refuse(),
      holdMs: RESTART_MS,
      end: () => redisProxy.heal(),
    });
    expectSurvived(run);
    expectReadiness(run, 'redis');
  }, 40_000);

  it(`Redis stalled for ${STALL_MS} ms (packets stopped)`, async () => {
    const run = await underLoad('Redis stall', {
      inject: () => redisProxy.stall(),
      holdMs: STALL_MS,
      end: () => redisProxy.heal(),
    });
    expectSurvived(run);
    expectReadiness(run, 'redis');
  }, 40_000);

  it('afterwards: no family with two live tokens, none revoked, every acknowledged write present', async () => {
    // A refresh family has at most one live token.
    const doubled = await db.query(
      `SELECT family_id, count(*) AS live FROM keyhold_oauth_refresh_tokens
       WHERE consumed_at IS NULL AND revoked_at IS NULL GROUP BY family_id HAVING count(*) > 1`,
    );
    expect(doubled.rows).toEqual([]);
    // No client misbehaved: a 503 followed by a retry with the same token must not cost it the family.
    const revoked = await db.query(
      'SELECT DISTINCT family_id FROM keyhold_oauth_refresh_tokens WHERE revoked_at IS NOT NULL',
    );
    expect(revoked.rows).toEqual([]);
    for (const worker of workers) {
      const refreshed = await fetch(`${instances[worker.index % 2]!.base}/tenant/${TENANT}/token`, {
        method: 'POST',
        headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
        body: form({ grant_type: 'refresh_token', refresh_token: worker.refreshToken }),
      });
      expect(refreshed.status).toBe(200);
      worker.refreshToken = ((await refreshed.json()) as { refresh_token: string }).refresh_token;
    }

    // Every registration answered 201 is in the database.
    const ids = acknowledged.clients.map((client) => client.id);
    const stored = await db.query<{ client_id: string }>(
      'SELECT client_id FROM keyhold_oauth_clients WHERE tenant = $1 AND client_id = ANY($2)',
      [TENANT, ids],
    );
    const storedIds = new Set(stored.rows.map((row) => row.client_id));
    const lostClients = acknowledged.clients.filter((client) => !storedIds.has(client.id));

    // Every note whose add_note answered 200 is in the host's records (the example's own table).
    const texts = new Set(
      (
        await db.query<{ text: string }>(
          "SELECT value::json->>'text' AS text FROM keyhold_host_records WHERE collection = 'notes'",
        )
      ).rows.map((row) => row.text),
    );
    const lostNotes = acknowledged.notes.filter((note) => !texts.has(note.text));
    // And both instances list the same notes (the newest of them), the last ones written among them.
    const [atA, atB] = [await listNotes(instances[0]!), await listNotes(instances[1]!)];
    expect(atA).toEqual(atB);
    expect(atA).toContain(acknowledged.notes.at(-1)?.text);

    for (const row of figures) {
      const writes = [...acknowledged.notes, ...acknowledged.clients].filter(
        (write) => write.fault === row.fault,
      );
      const lost =
        lostNotes.filter((note) => note.fault === row.fault).length +
        lostClients.filter((client) => client.fault === row.fault).length;
      row.writesAcknowledged = writes.length;
      row.dataLost = lost === 0 ? 'none' : `${lost} acknowledged writes missing`;
    }
    expect(acknowledged.notes.length).toBeGreaterThan(0);
    expect(acknowledged.clients.length).toBeGreaterThan(0);
    expect(lostClients).toEqual([]);
    expect(lostNotes).toEqual([]);

    // Nothing reached stderr as an unhandled error (ioredis prints one when no listener takes it).
    for (const instance of instances) {
      expect(instance.host.output()).not.toMatch(
        /Unhandled error event|uncaughtException|unhandledRejection/,
      );
    }
  }, 30_000);
});
