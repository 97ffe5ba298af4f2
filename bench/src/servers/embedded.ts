// Keyhold embedded the way the README shows it: createAuthorizationServer behind
// @keyhold/adapter-node's toNodeListener on a plain node:http server, one tenant, rate limits off, silent
// logger. It exists next to the example host so that one thing changes at a time: the store (memory, SQLite
// file, PostgreSQL) for the refresh grant, and the number of registered clients for the scale runs.
// BENCH_STORE = memory | sqlite | postgres, BENCH_ALG = ES256 | HS256, BENCH_CLIENTS (confidential
// client_credentials clients, default 1), BENCH_REFRESH_SEEDS (refresh tokens seeded for a public client),
// BENCH_CLIENT_CACHE_TTL (clientCacheTtlSeconds; 0 reads the client row on every request).
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { toNodeListener } from '@keyhold/adapter-node';
import { randomToken, sha256Base64url } from '@keyhold/internal';
import {
  type ClientRecord,
  createAuthorizationServer,
  createMemoryStorage,
  generateSigningKey,
  type OAuthStorage,
  type TenantConfig,
} from '@keyhold/oauth-core';
import { createPostgresPool, createPostgresStores } from '@keyhold/store-postgres';
import { createSqliteStores, openSqliteDatabase } from '@keyhold/store-sqlite';
import { announce } from './common.js';

const store = process.env['BENCH_STORE'] ?? 'memory';
const alg = process.env['BENCH_ALG'] === 'HS256' ? 'HS256' : 'ES256';
const clientCount = Number(process.env['BENCH_CLIENTS'] ?? '1');
const refreshSeeds = Number(process.env['BENCH_REFRESH_SEEDS'] ?? '0');
/** `clientCacheTtlSeconds`; unset: the server's default. `0` reads the store on every request. */
const clientCacheTtl = process.env['BENCH_CLIENT_CACHE_TTL'];
const TENANT = 'demo';

const cleanups: (() => Promise<void> | void)[] = [];
let storage: OAuthStorage;
/** Runs `work` in one transaction where the store allows it, so seeding 100,000 rows takes seconds. */
let batch: (work: () => Promise<void>) => Promise<void> = (work) => work();
if (store === 'sqlite') {
  const dir = mkdtempSync(join(tmpdir(), 'keyhold-bench-'));
  const db = openSqliteDatabase(join(dir, 'keyhold.db'));
  storage = createSqliteStores(db).oauth;
  batch = async (work) => {
    db.exec('BEGIN');
    await work();
    db.exec('COMMIT');
  };
  cleanups.push(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });
} else if (store === 'postgres') {
  const base = process.env['BENCH_POSTGRES_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';
  // A schema of its own, so the bench neither sees nor disturbs what tests running alongside keep in `public`.
  const schema = `keyhold_bench_${process.pid}`;
  const admin = createPostgresPool(base, { max: 1 });
  await admin.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
  const separator = base.includes('?') ? '&' : '?';
  const pool = createPostgresPool(
    `${base}${separator}options=${encodeURIComponent(`-c search_path=${schema}`)}`,
  );
  storage = (await createPostgresStores(pool)).oauth;
  cleanups.push(async () => {
    await pool.end();
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.end();
  });
} else {
  storage = createMemoryStorage();
}

const tenant: TenantConfig = {
  signingKeys: [await generateSigningKey(alg, 'k1')],
  scopesSupported: ['openid', 'profile', 'mcp:tools', 'offline_access'],
};
const now = Date.now();
const secretPrefix = randomToken(16);
await batch(async () => {
  for (let i = 0; i < clientCount; i++) {
    const record: ClientRecord = {
      clientId: `bench-${i}`,
      redirectUris: [],
      grantTypes: ['client_credentials'],
      responseTypes: [],
      tokenEndpointAuthMethod: 'client_secret_basic',
      clientSecretHash: sha256Base64url(`${secretPrefix}-${i}`),
      createdAt: now,
      registration: 'provisioned',
    };
    await storage.clients.create(TENANT, record);
  }
});
const refreshClientId = 'bench-public';
await storage.clients.create(TENANT, {
  clientId: refreshClientId,
  redirectUris: ['http://127.0.0.1/callback'],
  grantTypes: ['authorization_code', 'refresh_token'],
  responseTypes: ['code'],
  tokenEndpointAuthMethod: 'none',
  createdAt: now,
  registration: 'provisioned',
});
const refreshTokens: string[] = [];
await batch(async () => {
  for (let i = 0; i < refreshSeeds; i++) {
    const token = randomToken();
    refreshTokens.push(token);
    await storage.refreshTokens.save(TENANT, {
      tokenHash: sha256Base64url(token),
      familyId: randomToken(16),
      clientId: refreshClientId,
      clientType: 'registered',
      userId: 'user-1',
      scope: 'openid mcp:tools offline_access',
      resources: [],
      createdAt: now,
      expiresAt: now + 86_400_000,
    });
  }
});

const server = createServer();
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const address = server.address();
const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
const oauth = createAuthorizationServer({
  baseUrl: url,
  tenants: { get: (slug) => (slug === TENANT ? tenant : undefined) },
  storage,
  ...(clientCacheTtl === undefined ? {} : { clientCacheTtlSeconds: Number(clientCacheTtl) }),
});
// The authorization server's one face, mounted as the README shows: token and introspection (and every other
// endpoint) through the one Node adapter.
server.on('request', toNodeListener(oauth));

async function stop(): Promise<void> {
  server.close();
  for (const cleanup of cleanups) await cleanup();
  process.exit(0);
}
process.once('SIGTERM', () => void stop());
process.once('SIGINT', () => void stop());

announce({
  url,
  tokenPath: `/tenant/${TENANT}/token`,
  introspectPath: `/tenant/${TENANT}/introspect`,
  clientId: 'bench-0',
  clientSecret: `${secretPrefix}-0`,
  clientCount,
  secretPrefix,
  refreshClientId,
  refreshTokens,
});
