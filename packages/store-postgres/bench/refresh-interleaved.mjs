// The refresh_token grant through the real token handler on the memory store, SQLite (WAL file) and
// PostgreSQL, INTERLEAVED: each round refreshes 16 independent token chains once on every store in turn
// (the order rotates each round), so a burst of load from other processes hits every store alike. On a
// shared machine this gives steadier ratios than token-endpoint.bench.ts, which runs each store for seconds
// in a row. Prints, per store, the median time of one round (16 refreshes) and its ratio to the memory store.
// "PostgreSQL, 2 statements" redeems a token as before issue 17 (mark, then insert: two commits), for an
// in-run before/after.
// Uses the built packages (so it can also measure an older commit's build):
//   pnpm --filter @keyhold/oauth-core --filter @keyhold/store-sqlite --filter @keyhold/store-postgres build
//   node packages/store-postgres/bench/refresh-interleaved.mjs
// BENCH_ROUNDS (default 300, at most 5000) rounds after BENCH_WARMUP (default 30). Needs the test PostgreSQL
// (KEYHOLD_TEST_POSTGRES_URL, default postgres://postgres@127.0.0.1:5432/test); it uses a schema of its own.
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createManualClock } from '@keyhold/core';
import { createAuthorizationServer, createMemoryStorage, generateSigningKey } from '@keyhold/oauth-core';
import { createSqliteStores, openSqliteDatabase } from '@keyhold/store-sqlite';
import pg from 'pg';
import { createPostgresStores } from '../dist/index.js';

const CHAINS = 16;
const ROUNDS = Math.min(Number(process.env.BENCH_ROUNDS ?? 300), 5000);
const WARMUP = Math.min(Number(process.env.BENCH_WARMUP ?? 30), 1000);
const URL = process.env.KEYHOLD_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

async function chainsOver(storage) {
  const clock = createManualClock(Date.parse('2026-03-01T12:00:00Z'));
  const tenant = { signingKeys: [await generateSigningKey('ES256', 'k1')] };
  const server = createAuthorizationServer({
    baseUrl: 'https://auth.example',
    tenants: { get: (slug) => (slug === 'demo' ? tenant : undefined) },
    storage,
    clock,
  });
  await storage.clients.create('demo', {
    clientId: 'bench-client',
    redirectUris: ['https://app.example/callback'],
    grantTypes: ['authorization_code', 'refresh_token'],
    responseTypes: ['code'],
    tokenEndpointAuthMethod: 'none',
    createdAt: clock.now(),
  });
  const tokens = [];
  for (let i = 0; i < CHAINS; i++) {
    const token = randomBytes(32).toString('base64url');
    await storage.refreshTokens.save('demo', {
      tokenHash: createHash('sha256').update(token).digest('base64url'),
      familyId: `family-${i}`,
      clientId: 'bench-client',
      clientType: 'registered',
      userId: `user-${i}`,
      scope: 'mcp openid',
      resources: [],
      createdAt: clock.now(),
      expiresAt: clock.now() + 30 * 86_400_000,
    });
    tokens.push(token);
  }
  const refresh = async (i) => {
    const response = await server.fetch(
      new Request('https://auth.example/tenant/demo/token', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'refresh_token',
          refresh_token: tokens[i],
          client_id: 'bench-client',
        }),
      }),
    );
    const result = { status: response.status, body: await response.text() };
    if (result.status !== 200) throw new Error(`refresh failed: ${result.body}`);
    tokens[i] = JSON.parse(result.body).refresh_token;
  };
  return () => Promise.all(tokens.map((_, i) => refresh(i)));
}

/**
 * The same PostgreSQL store with a refresh redeemed the way it was before issue 17: one statement marks the
 * old token consumed (its own commit), a second inserts the successor (another commit). Run in the same
 * rounds as the one-statement rotation, it shows what the single statement saves under the same load.
 */
function twoStatementRotation(storage, pool) {
  const rotate = async (tenant, r) => {
    const marked = await pool.query(
      `UPDATE keyhold_oauth_refresh_tokens SET consumed_at = $3
       WHERE tenant = $1 AND token_hash = $2 AND consumed_at IS NULL AND revoked_at IS NULL
         AND expires_at > $3 AND client_id = $4
       RETURNING family_id, client_id, client_type, user_id, scope, resources, created_at, expires_at`,
      [tenant, r.tokenHash, r.now, r.clientId],
    );
    const row = marked.rows[0];
    if (row === undefined) {
      const current = await storage.refreshTokens.get(tenant, r.tokenHash);
      return current === undefined
        ? { ok: false, reason: 'unknown' }
        : { ok: false, reason: 'refused', current };
    }
    const previous = {
      tokenHash: r.tokenHash,
      familyId: row.family_id,
      clientId: row.client_id,
      clientType: row.client_type,
      userId: row.user_id,
      scope: row.scope,
      resources: row.resources,
      createdAt: Number(row.created_at),
      expiresAt: Number(row.expires_at),
    };
    await storage.refreshTokens.save(tenant, {
      ...previous,
      tokenHash: r.successorHash,
      createdAt: r.now,
      expiresAt: r.successorExpiresAt,
    });
    return { ok: true, previous };
  };
  return { ...storage, refreshTokens: { ...storage.refreshTokens, rotate } };
}

const admin = new pg.Client({ connectionString: URL });
await admin.connect();
const schemas = [0, 1].map(() => `keyhold_bench_${randomBytes(6).toString('hex')}`);
const pools = [];
for (const schema of schemas) {
  await admin.query(`CREATE SCHEMA ${schema}`);
  pools.push(new pg.Pool({ connectionString: URL, options: `-c search_path=${schema}`, max: 10 }));
}
const dir = mkdtempSync(join(tmpdir(), 'keyhold-bench-'));

const stores = {
  memory: await chainsOver(createMemoryStorage()),
  'SQLite (WAL file)': await chainsOver(createSqliteStores(openSqliteDatabase(join(dir, 'bench.db'))).oauth),
  'PostgreSQL (pool of 10)': await chainsOver((await createPostgresStores(pools[0])).oauth),
  'PostgreSQL, 2 statements': await chainsOver(
    twoStatementRotation((await createPostgresStores(pools[1])).oauth, pools[1]),
  ),
};
// Store level, one request at a time: the latency of redeeming one token (the old one consumed, its
// successor written) with the one-statement rotation and with the two statements it replaced, alternated.
const rotations = { 'one statement': [], 'two statements': [] };
{
  const oneStatement = (await createPostgresStores(pools[0])).oauth;
  const twoStatements = twoStatementRotation((await createPostgresStores(pools[1])).oauth, pools[1]);
  const variants = [
    ['one statement', oneStatement],
    ['two statements', twoStatements],
  ];
  for (const [, storage] of variants) {
    await storage.refreshTokens.save('latency', {
      tokenHash: 'latency-0',
      familyId: 'latency',
      clientId: 'c',
      clientType: 'registered',
      userId: 'u',
      scope: 'mcp',
      resources: [],
      createdAt: 0,
      expiresAt: 1e15,
    });
  }
  for (let i = 1; i <= WARMUP + ROUNDS; i++) {
    for (const [name, storage] of variants) {
      const start = performance.now();
      const outcome = await storage.refreshTokens.rotate('latency', {
        tokenHash: `latency-${i - 1}`,
        clientId: 'c',
        now: i,
        successorHash: `latency-${i}`,
        successorExpiresAt: 1e15,
      });
      if (!outcome.ok) throw new Error(`rotation ${i} was ${outcome.reason}`);
      if (i > WARMUP) rotations[name].push(performance.now() - start);
    }
  }
}

const names = Object.keys(stores);
const times = Object.fromEntries(names.map((name) => [name, []]));
try {
  for (let round = 0; round < WARMUP + ROUNDS; round++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(round + k) % names.length];
      const start = performance.now();
      await stores[name]();
      if (round >= WARMUP) times[name].push(performance.now() - start);
    }
  }
} finally {
  for (const pool of pools) await pool.end();
  for (const schema of schemas) await admin.query(`DROP SCHEMA ${schema} CASCADE`);
  await admin.end();
  rmSync(dir, { recursive: true, force: true });
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};
const memoryMedian = median(times.memory);
console.log(
  `${ROUNDS} interleaved rounds of ${CHAINS} concurrent refreshes (ES256), after ${WARMUP} warm-up rounds`,
);
for (const [name, values] of Object.entries(rotations)) {
  console.log(`PostgreSQL redemption of one token, alone, ${name}: median ${median(values).toFixed(2)} ms`);
}
for (const name of names) {
  const m = median(times[name]);
  console.log(
    `${name.padEnd(24)} median ${m.toFixed(2)} ms/round  ${Math.round((CHAINS * 1000) / m)} refreshes/s  ratio to memory ${(memoryMedian / m).toFixed(2)}`,
  );
}
