import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createManualClock } from '@keyhold/core';
import { formEncode, randomToken, sha256Base64url } from '@keyhold/internal';
import type { OAuthStorage } from '@keyhold/oauth-core';
import { createAuthorizationServer, createMemoryStorage, generateSigningKey } from '@keyhold/oauth-core';
import { createSqliteStores, openSqliteDatabase } from '@keyhold/store-sqlite';
import { afterAll, bench, describe } from 'vitest';
import { createPostgresOAuthStorage } from '../src/oauth-store.js';
import { createIsolatedPool, requirePostgres } from '../test/postgres.js';

// The refresh_token grant through the real token handler (client lookup, one-step rotation, sign ES256),
// with the memory store, SQLite (WAL file and :memory:) and PostgreSQL in one run: the one benchmark of
// both SQL stores. Each iteration refreshes CHAINS independent token families at once, as concurrent
// clients would, so a store that overlaps round trips (a pool) is measured on throughput, not only on the
// latency of one request.

const CHAINS = 16;
const CLIENT_ID = 'bench-client';

interface Chains {
  refreshAll(): Promise<void>;
}

async function chainsOver(storage: OAuthStorage, refreshReuseWindowSeconds?: number): Promise<Chains> {
  const clock = createManualClock(Date.parse('2026-03-01T12:00:00Z'));
  const tenant = { signingKeys: [await generateSigningKey('ES256', 'k1')] };
  const server = createAuthorizationServer({
    baseUrl: 'https://auth.example',
    tenants: { get: (slug) => (slug === 'demo' ? tenant : undefined) },
    storage,
    clock,
    ...(refreshReuseWindowSeconds === undefined ? {} : { refreshReuseWindowSeconds }),
  });
  await storage.clients.create('demo', {
    clientId: CLIENT_ID,
    redirectUris: ['https://app.example/callback'],
    grantTypes: ['authorization_code', 'refresh_token'],
    responseTypes: ['code'],
    tokenEndpointAuthMethod: 'none',
    createdAt: clock.now(),
  });
  const tokens: string[] = [];
  for (let i = 0; i < CHAINS; i++) {
    const token = randomToken();
    await storage.refreshTokens.save('demo', {
      tokenHash: sha256Base64url(token),
      familyId: `family-${i}`,
      clientId: CLIENT_ID,
      clientType: 'registered',
      userId: `user-${i}`,
      scope: 'mcp openid',
      resources: [],
      createdAt: clock.now(),
      expiresAt: clock.now() + 30 * 86_400_000,
    });
    tokens.push(token);
  }
  const refresh = async (i: number): Promise<void> => {
    const response = await server.fetch(
      new Request('https://auth.example/tenant/demo/token', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: formEncode({
          grant_type: 'refresh_token',
          refresh_token: tokens[i] as string,
          client_id: CLIENT_ID,
        }),
      }),
    );
    const result = { status: response.status, body: await response.text() };
    if (result.status !== 200) throw new Error(`refresh failed: ${result.body}`);
    tokens[i] = (JSON.parse(result.body ?? '{}') as { refresh_token: string }).refresh_token;
  };
  return { refreshAll: async () => void (await Promise.all(tokens.map((_, i) => refresh(i)))) };
}

const available = await requirePostgres();
const postgres = available ? await createIsolatedPool() : undefined;
// The same with commits acknowledged before their WAL reaches the disk: shows what the fsync per commit
// costs (a refresh is two commits). Not the package default; see the README.
const postgresAsync = available ? await createIsolatedPool({ synchronous_commit: 'off' }) : undefined;
afterAll(async () => {
  await postgres?.drop();
  await postgresAsync?.drop();
});

const memory = await chainsOver(createMemoryStorage());
// Strict rotation: no successor is sealed onto the old token; shows what the reuse window costs a refresh.
const memoryStrict = await chainsOver(createMemoryStorage(), 0);
const sqlite = await chainsOver(
  createSqliteStores(openSqliteDatabase(join(mkdtempSync(join(tmpdir(), 'keyhold-bench-')), 'bench.db')))
    .oauth,
);
// SQLite without the file: what the WAL's fsync costs (the store-sqlite README quotes this row).
const sqliteInMemory = await chainsOver(createSqliteStores(openSqliteDatabase(':memory:')).oauth);
const pg = postgres && (await chainsOver(await createPostgresOAuthStorage(postgres.pool)));
const pgAsync = postgresAsync && (await chainsOver(await createPostgresOAuthStorage(postgresAsync.pool)));

// Long runs: the machine is shared, so short runs are dominated by other processes' noise.
const options = { time: 4000, warmupTime: 500 };

describe(`refresh_token grant, ${CHAINS} concurrent chains per iteration (ES256)`, () => {
  bench('memory store', () => memory.refreshAll(), options);
  bench('memory store, reuse window off', () => memoryStrict.refreshAll(), options);
  bench('SQLite store (WAL file)', () => sqlite.refreshAll(), options);
  bench('SQLite store (:memory:)', () => sqliteInMemory.refreshAll(), options);
  if (pg) bench('PostgreSQL store (pool of 10)', () => pg.refreshAll(), options);
  if (pgAsync) bench('PostgreSQL store, synchronous_commit=off', () => pgAsync.refreshAll(), options);
});
