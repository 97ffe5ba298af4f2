import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';

/** The PostgreSQL these tests use: this machine's (127.0.0.1:5432, trust auth, database `test`). */
export const POSTGRES_URL: string =
  process.env['KEYHOLD_TEST_POSTGRES_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';

/**
 * Whether PostgreSQL answers. Under `CI=true` a missing database fails the run (it throws); elsewhere the
 * caller skips its suites and this says plainly why.
 */
export async function requirePostgres(): Promise<boolean> {
  const client = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch (error) {
    const reason = `PostgreSQL at ${POSTGRES_URL} is not reachable (${(error as Error).message})`;
    if (process.env['CI'] === 'true') throw new Error(`${reason}; CI requires it`);
    console.warn(`SKIPPED PostgreSQL store tests: ${reason}`);
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * A pool whose connections use a fresh schema of their own, so test files never see each other's rows.
 * `settings` are extra `-c name=value` session settings (the benchmark compares `synchronous_commit`).
 */
export async function createIsolatedPool(
  settings: Readonly<Record<string, string>> = {},
): Promise<{ pool: pg.Pool; drop(): Promise<void> }> {
  const schema = `keyhold_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.end();
  const pool = new pg.Pool({
    connectionString: POSTGRES_URL,
    options: [`-c search_path=${schema}`, ...Object.entries(settings).map(([k, v]) => `-c ${k}=${v}`)].join(
      ' ',
    ),
    max: 10,
  });
  return {
    pool,
    drop: async () => {
      await pool.end();
      const cleanup = new pg.Client({ connectionString: POSTGRES_URL });
      await cleanup.connect();
      await cleanup.query(`DROP SCHEMA ${schema} CASCADE`);
      await cleanup.end();
    },
  };
}

/**
 * Inside a `describe`: an isolated pool created before its tests and dropped after them. Read `.pool` in
 * hooks and tests (it does not exist while the suite is being collected).
 */
export function useIsolatedPool(): { readonly pool: pg.Pool } {
  let isolated: { pool: pg.Pool; drop(): Promise<void> } | undefined;
  beforeAll(async () => {
    isolated = await createIsolatedPool();
  });
  afterAll(async () => {
    await isolated?.drop();
  });
  return {
    get pool(): pg.Pool {
      if (isolated === undefined) throw new Error('the isolated pool exists only in hooks and tests');
      return isolated.pool;
    },
  };
}

/**
 * A factory for the conformance suites, which want an empty store per test: makes the store (running its
 * migrations) and then empties `tables`.
 */
export function freshStore<T>(
  db: { readonly pool: pg.Pool },
  tables: readonly string[],
  make: (pool: pg.Pool) => Promise<T>,
): () => Promise<T> {
  return async () => {
    const store = await make(db.pool);
    await db.pool.query(`TRUNCATE ${tables.join(', ')}`);
    return store;
  };
}
