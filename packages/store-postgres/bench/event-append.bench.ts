import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AuthEvent } from '@keyhold/oauth-core';
import { createMemoryStorage } from '@keyhold/oauth-core';
import type { AuthEventStore } from '@keyhold/oauth-core/storage';
import { createSqliteStores, openSqliteDatabase } from '@keyhold/store-sqlite';
import { afterAll, bench, describe } from 'vitest';
import { createPostgresOAuthStorage } from '../src/oauth-store.js';
import { createIsolatedPool, requirePostgres } from '../test/postgres.js';

// The decision timeline's write: one `events.append` (insert, prune by age, prune the event's own part by
// count) against a tenant already at its bounds, so every append also trims — the steady state of a busy
// tenant. A person's event (the 10 000 bound) and a stranger's refusal (the anonymous 1 000 bound) are
// measured apart, for the memory store, SQLite (WAL file and :memory:) and PostgreSQL in one run.

const MAX_EVENTS = 10_000;
const MAX_ANONYMOUS = 1_000;
const START = Date.parse('2026-03-01T12:00:00Z');

let at = START;
/** The next event time: appends arrive in order, as a server's do. */
const next = (): number => {
  at += 1;
  return at;
};
const subjectEvent = (): AuthEvent => ({
  at: next(),
  tenant: 'demo',
  category: 'token',
  reason: 'token.issued',
  status: 200,
  grantType: 'refresh_token',
  clientId: 'https://app.example/client.json',
  userId: 'alice',
  grantId: 'grant-1',
});
const anonymousEvent = (): AuthEvent => ({
  at: next(),
  tenant: 'demo',
  category: 'token',
  reason: 'request.invalid_client',
  status: 401,
  errorCode: 'invalid_client',
});
const limits = (anonymous: boolean) => ({
  maxEventsPerTenant: MAX_EVENTS,
  maxAnonymousEventsPerTenant: MAX_ANONYMOUS,
  anonymous,
  notBefore: START - 86_400_000,
});

/** Fills both parts of the tenant to their bounds through the store's own append. */
async function filled(store: AuthEventStore): Promise<AuthEventStore> {
  for (let i = 0; i < MAX_EVENTS; i++) await store.append(subjectEvent(), limits(false));
  for (let i = 0; i < MAX_ANONYMOUS; i++) await store.append(anonymousEvent(), limits(true));
  return store;
}

function eventsOf(storage: { readonly events?: AuthEventStore }): AuthEventStore {
  if (storage.events === undefined) throw new Error('this storage keeps no timeline');
  return storage.events;
}

const available = await requirePostgres();
const postgres = available ? await createIsolatedPool() : undefined;
afterAll(async () => {
  await postgres?.drop();
});

const memory = await filled(eventsOf(createMemoryStorage()));
const sqlite = await filled(
  eventsOf(
    createSqliteStores(openSqliteDatabase(join(mkdtempSync(join(tmpdir(), 'keyhold-bench-')), 'bench.db')))
      .oauth,
  ),
);
const sqliteInMemory = await filled(eventsOf(createSqliteStores(openSqliteDatabase(':memory:')).oauth));
let pg: AuthEventStore | undefined;
if (postgres) {
  pg = eventsOf(await createPostgresOAuthStorage(postgres.pool));
  // Filled in two statements rather than 11 000 round trips: the rows are what an append would have left.
  await postgres.pool.query(
    `INSERT INTO keyhold_oauth_events (tenant, at, category, reason, status, client_id, user_id, anonymous)
     SELECT 'demo', $1::bigint + n, 'token', 'token.issued', 200, 'app', 'alice', 0 FROM generate_series(1, $2) n`,
    [START, MAX_EVENTS],
  );
  await postgres.pool.query(
    `INSERT INTO keyhold_oauth_events (tenant, at, category, reason, status, anonymous)
     SELECT 'demo', $1::bigint + n, 'token', 'request.invalid_client', 401, 1 FROM generate_series(1, $2) n`,
    [START + MAX_EVENTS, MAX_ANONYMOUS],
  );
  at = START + MAX_EVENTS + MAX_ANONYMOUS;
}

// Long enough for a shared machine's noise to average out, short enough for one run of the whole file.
const options = { time: 2000, warmupTime: 300 };

describe(`events.append at a full tenant (${MAX_EVENTS} + ${MAX_ANONYMOUS} anonymous events)`, () => {
  bench('memory store, a person’s event', () => memory.append(subjectEvent(), limits(false)), options);
  bench('memory store, an anonymous refusal', () => memory.append(anonymousEvent(), limits(true)), options);
  bench('SQLite (WAL file), a person’s event', () => sqlite.append(subjectEvent(), limits(false)), options);
  bench(
    'SQLite (WAL file), an anonymous refusal',
    () => sqlite.append(anonymousEvent(), limits(true)),
    options,
  );
  bench(
    'SQLite (:memory:), a person’s event',
    () => sqliteInMemory.append(subjectEvent(), limits(false)),
    options,
  );
  if (pg) {
    const store = pg;
    bench(
      'PostgreSQL (pool of 10), a person’s event',
      () => store.append(subjectEvent(), limits(false)),
      options,
    );
    bench(
      'PostgreSQL (pool of 10), an anonymous refusal',
      () => store.append(anonymousEvent(), limits(true)),
      options,
    );
  }
});
