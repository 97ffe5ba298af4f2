import { randomBytes } from 'node:crypto';
import { type Logger, StorageUnavailableError } from '@keyhold/core';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FaultProxy, startFaultProxy } from '../../../test-support/fault-proxy.js';
import { checkPostgresReadiness } from '../src/availability.js';
import { createPostgresClaimStore } from '../src/claim-store.js';
import { createPostgresPool, type PostgresPool, withTransaction } from '../src/index.js';
import { createPostgresOAuthStorage } from '../src/oauth-store.js';
import { POSTGRES_URL, requirePostgres } from './postgres.js';

const available = await requirePostgres();

const CONNECT_TIMEOUT_MS = 500;
const STATEMENT_TIMEOUT_MS = 500;
const QUERY_TIMEOUT_MS = 800;
// Generous: the machine is shared with other test runs; the point is "bounded", not "fast".
const SLACK_MS = 1500;

interface LogLine {
  level: keyof Logger;
  message: string | undefined;
  fields: Record<string, unknown>;
}

function recordingLogger(): Logger & { lines: LogLine[] } {
  const lines: LogLine[] = [];
  const at =
    (level: keyof Logger) =>
    (fields: Record<string, unknown>, message?: string): void => {
      lines.push({ level, message, fields });
    };
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function elapsedMs(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

const target = new URL(POSTGRES_URL);
const claim = (code: string) => ({ code, scopeDir: '/tmp/x', createdAt: 1, expiresAt: Date.now() + 60_000 });

describe.skipIf(!available)('a PostgreSQL pool survives its server and bounds every wait', () => {
  const schema = `keyhold_test_${randomBytes(6).toString('hex')}`;
  const applicationName = `keyhold_outage_${randomBytes(4).toString('hex')}`;
  let admin: pg.Client;
  let proxy: FaultProxy;
  let pool: PostgresPool;
  let logger: ReturnType<typeof recordingLogger>;
  const uncaught: unknown[] = [];
  const onUncaught = (error: unknown): void => {
    uncaught.push(error);
  };

  beforeAll(async () => {
    admin = new pg.Client({ connectionString: POSTGRES_URL });
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
    proxy = await startFaultProxy({ host: target.hostname, port: Number(target.port || 5432) });
    process.on('uncaughtException', onUncaught);
  });
  afterAll(async () => {
    process.off('uncaughtException', onUncaught);
    await proxy?.close();
    await admin?.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin?.end();
  });
  beforeEach(async () => {
    logger = recordingLogger();
    const url = new URL(POSTGRES_URL);
    url.port = String(proxy.port);
    url.searchParams.set('options', `-c search_path=${schema}`);
    url.searchParams.set('application_name', applicationName);
    pool = createPostgresPool(url.toString(), {
      max: 4,
      connectionTimeoutMs: CONNECT_TIMEOUT_MS,
      statementTimeoutMs: STATEMENT_TIMEOUT_MS,
      queryTimeoutMs: QUERY_TIMEOUT_MS,
      logger,
    });
  });
  afterEach(async () => {
    await proxy.heal();
    await pool.end();
    expect(uncaught).toEqual([]);
  });

  const stateLines = () => logger.lines.map((line) => `${line.level} ${line.message}`);

  describe('a dropped connection never crashes the process, and the pool reconnects by itself', () => {
    it('pg_terminate_backend on every idle pooled connection: logged once, the next query succeeds', async () => {
      const store = await createPostgresClaimStore(pool);
      await Promise.all([store.insert(claim('a')), store.insert(claim('b')), store.get('a')]);
      expect(pool.idleCount).toBeGreaterThan(0);
      const { rows } = await admin.query(
        'SELECT pg_terminate_backend(pid) AS done FROM pg_stat_activity WHERE application_name = $1',
        [applicationName],
      );
      expect(rows.length).toBeGreaterThan(0);
      await sleep(200);
      expect(uncaught).toEqual([]);
      expect(stateLines()).toEqual(['warn postgres connection lost']);
      expect(await store.get('a')).toMatchObject({ code: 'a' });
      expect(stateLines()).toEqual(['warn postgres connection lost', 'info postgres connection restored']);
    });

    it('a network drop of every connection (as a server restart does): the next query succeeds', async () => {
      const store = await createPostgresClaimStore(pool);
      await store.insert(claim('c'));
      proxy.dropAll();
      await sleep(200);
      expect(uncaught).toEqual([]);
      expect(await store.get('c')).toMatchObject({ code: 'c' });
    });
  });

  describe('an unreachable server fails calls with StorageUnavailableError("postgres") within the timeout', () => {
    it('refused: each call fails within connectionTimeoutMs, one log line for the whole outage, recovery on the same pool', async () => {
      const store = await createPostgresClaimStore(pool);
      await proxy.refuse();
      for (let attempt = 0; attempt < 5; attempt++) {
        const took = await elapsedMs(async () => {
          const error = await store.get('a').catch((e: unknown) => e);
          expect(error).toBeInstanceOf(StorageUnavailableError);
          expect(error).toMatchObject({ component: 'postgres', code: 'ERR_STORAGE_UNAVAILABLE' });
          expect((error as Error).cause).toBeInstanceOf(Error);
        });
        expect(took).toBeLessThan(CONNECT_TIMEOUT_MS + SLACK_MS);
      }
      expect(await checkPostgresReadiness(pool, { timeoutMs: 300 })).toMatchObject({ ok: false });
      expect(stateLines()).toEqual(['warn postgres connection lost']);
      await proxy.heal();
      expect(await checkPostgresReadiness(pool, { timeoutMs: 2000 })).toEqual({ ok: true });
      expect(await store.insert(claim('d'))).toBe(true);
      expect(stateLines()).toEqual(['warn postgres connection lost', 'info postgres connection restored']);
    });

    it('the reads of the bearer and token checks (grant, client block) fail the same way, so they fail closed', async () => {
      const storage = await createPostgresOAuthStorage(pool);
      await storage.grants.create('t', {
        grantId: 'g1',
        userId: 'u',
        clientId: 'c',
        clientType: 'registered',
        kind: 'authorization_code',
        scopes: [],
        resources: [],
        offlineAccess: false,
        createdAt: 1,
        lastUsedAt: 1,
      });
      await proxy.refuse();
      for (const read of [() => storage.grants.get('t', 'g1'), () => storage.clientBlocks.get('t', 'c')]) {
        const took = await elapsedMs(async () => {
          const error = await read().catch((e: unknown) => e);
          expect(error).toBeInstanceOf(StorageUnavailableError);
        });
        expect(took).toBeLessThan(CONNECT_TIMEOUT_MS + SLACK_MS);
      }
      await proxy.heal();
      expect(await storage.grants.get('t', 'g1')).toMatchObject({ grantId: 'g1' });
    });

    it('stalled (bytes accepted, nothing answered): a query on an open connection fails within queryTimeoutMs', async () => {
      const store = await createPostgresClaimStore(pool);
      await store.insert(claim('e'));
      proxy.stall();
      const took = await elapsedMs(async () => {
        await expect(store.get('e')).rejects.toMatchObject({ component: 'postgres' });
      });
      expect(took).toBeGreaterThanOrEqual(QUERY_TIMEOUT_MS - 50);
      expect(took).toBeLessThan(QUERY_TIMEOUT_MS + SLACK_MS);
      // A new connection through the stall never completes its handshake: bounded by connectionTimeoutMs.
      const calls = await Promise.all(
        [1, 2, 3, 4, 5].map(() =>
          elapsedMs(() => expect(store.get('e')).rejects.toThrow(StorageUnavailableError)),
        ),
      );
      for (const callMs of calls)
        expect(callMs).toBeLessThan(QUERY_TIMEOUT_MS + CONNECT_TIMEOUT_MS + SLACK_MS);
      const readiness = await elapsedMs(async () => {
        expect(await checkPostgresReadiness(pool, { timeoutMs: 300 })).toMatchObject({ ok: false });
      });
      expect(readiness).toBeLessThan(300 + SLACK_MS);
      await proxy.heal();
      expect(await store.get('e')).toMatchObject({ code: 'e' });
      expect(stateLines()).toEqual(['warn postgres connection lost', 'info postgres connection restored']);
    });

    it('a statement running past statementTimeoutMs is cancelled by the server: StorageUnavailableError', async () => {
      const took = await elapsedMs(async () => {
        await expect(
          withTransaction(pool, (client) => client.query('SELECT pg_sleep(5)')),
        ).rejects.toMatchObject({
          component: 'postgres',
          cause: expect.objectContaining({ code: '57014' }),
        });
      });
      expect(took).toBeLessThan(STATEMENT_TIMEOUT_MS + SLACK_MS);
    });
  });

  describe('withTransaction', () => {
    it('leaves a constraint violation as it is (not an outage) and rolls back', async () => {
      await pool.query('CREATE TABLE IF NOT EXISTS unique_things (id TEXT PRIMARY KEY)');
      await pool.query("INSERT INTO unique_things VALUES ('x') ON CONFLICT DO NOTHING");
      const error = await withTransaction(pool, async (client) => {
        await client.query("INSERT INTO unique_things VALUES ('y')");
        await client.query("INSERT INTO unique_things VALUES ('x')");
      }).catch((e: unknown) => e);
      expect(error).not.toBeInstanceOf(StorageUnavailableError);
      expect(error).toMatchObject({ code: '23505' });
      expect((await pool.query("SELECT id FROM unique_things WHERE id = 'y'")).rowCount).toBe(0);
      expect(stateLines()).toEqual([]);
    });

    it('destroys a client whose connection died inside the transaction instead of pooling it again', async () => {
      const error = await withTransaction(pool, async (client) => {
        await client.query('SELECT 1');
        proxy.dropAll();
        await sleep(100);
        await client.query('SELECT 1');
      }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StorageUnavailableError);
      expect(uncaught).toEqual([]);
      expect(pool.totalCount).toBe(0);
      expect(
        await withTransaction(pool, async (client) => (await client.query('SELECT 2 AS two')).rows[0]),
      ).toEqual({
        two: 2,
      });
    });
  });

  describe('migrations have their own, longer bound', () => {
    it('a factory waiting on another instance’s migration lock past the statement and query timeouts still succeeds', async () => {
      const holder = new pg.Client({ connectionString: POSTGRES_URL });
      await holder.connect();
      try {
        await holder.query('SELECT pg_advisory_lock($1)', [0x6b657968]);
        const release = sleep(QUERY_TIMEOUT_MS + 500).then(() =>
          holder.query('SELECT pg_advisory_unlock($1)', [0x6b657968]),
        );
        const store = await createPostgresClaimStore(pool);
        await release;
        expect(await store.insert(claim('after-lock'))).toBe(true);
      } finally {
        await holder.end();
      }
    });
  });

  describe('checkPostgresReadiness', () => {
    it('answers ok against a working server and never throws on a bad timeout', async () => {
      expect(await checkPostgresReadiness(pool)).toEqual({ ok: true });
      expect(await checkPostgresReadiness(pool, { timeoutMs: 0 })).toMatchObject({ ok: false });
    });
  });
});

describe('the default timeouts', () => {
  it('keep a connection wait plus a statement wait under oauth-core’s 5-second refresh reuse window', () => {
    const pool = createPostgresPool('postgres://127.0.0.1/test');
    const options = pool.options as pg.PoolConfig;
    expect(options.connectionTimeoutMillis).toBeGreaterThan(0);
    expect(options.statement_timeout).toBeGreaterThan(0);
    expect(options.query_timeout).toBeGreaterThanOrEqual(options.statement_timeout as number);
    expect((options.connectionTimeoutMillis as number) + (options.query_timeout as number)).toBeLessThan(
      5000,
    );
    void pool.end();
  });
});
