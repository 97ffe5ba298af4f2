import pg from 'pg';
import { check } from './errors.js';

/** The pool type the stores accept: a `pg.Pool` you create or one {@link createPostgresPool} makes. */
export type PostgresPool = pg.Pool;

/** A client checked out of the pool, for a transaction. */
export type PostgresClient = pg.PoolClient;

/** Options of {@link createPostgresPool}. */
export interface PostgresPoolOptions {
  /** Most connections the pool opens at once (default 10). */
  readonly max?: number;
}

/**
 * Creates a `pg` pool from a connection string (e.g. `postgres://user@127.0.0.1:5432/keyhold`). A string
 * that is not a `postgres://` or `postgresql://` URL, or a `max` that is not a positive whole number, throws
 * `PostgresStoreError` (`ERR_INVALID_OPTIONS`).
 *
 * @example
 * ```ts
 * const pool = createPostgresPool(process.env.DATABASE_URL!, { max: 10 });
 * ```
 */
export function createPostgresPool(
  connectionString: string,
  options: PostgresPoolOptions = {},
): PostgresPool {
  if (typeof connectionString !== 'string' || !/^postgres(ql)?:\/\//.test(connectionString)) {
    throw check.invalid('connectionString must be a postgres:// or postgresql:// URL');
  }
  return new pg.Pool({ connectionString, max: check.positiveInteger('max', options.max, 10) });
}

/**
 * Runs `work` in one transaction on one pooled client: committed when it resolves, rolled back when it
 * throws.
 *
 * @example
 * ```ts
 * await withTransaction(pool, async (client) => { await client.query('…'); });
 * ```
 */
export async function withTransaction<T>(
  pool: PostgresPool,
  work: (client: PostgresClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}
