import type { Logger } from '@keyhold/core';
import pg from 'pg';
import { guarded, isConnectionFailure, trackConnectionState } from './availability.js';
import { check } from './errors.js';

/** The pool type the stores accept: a `pg.Pool` you create or one {@link createPostgresPool} makes. */
export type PostgresPool = pg.Pool;

/** A client checked out of the pool, for a transaction. */
export type PostgresClient = pg.PoolClient;

/**
 * Options of {@link createPostgresPool}. Every wait on the database is bounded: the defaults keep the
 * longest one (a connection, then a statement) under oauth-core's 5-second refresh reuse window, so a
 * client retrying a refresh that failed on a slow database still finds its window open.
 */
export interface PostgresPoolOptions {
  /** Most connections the pool opens at once (default 10). */
  readonly max?: number;
  /**
   * The longest a caller waits for a connection: a free pooled one, or a new one through TCP and the
   * startup handshake (default 1500 ms). Past it the call fails with `StorageUnavailableError('postgres')`.
   */
  readonly connectionTimeoutMs?: number;
  /**
   * The server-side `statement_timeout` of every connection (default 2000 ms): the database cancels a
   * statement that runs longer (a lock wait, a slow plan) and the call fails with `StorageUnavailableError`.
   */
  readonly statementTimeoutMs?: number;
  /**
   * The client-side limit on waiting for a statement's answer (default `statementTimeoutMs` + 500 ms, and
   * never below `statementTimeoutMs`): what ends a wait on a server that stopped answering altogether,
   * which no server-side timeout can. The connection is then discarded.
   */
  readonly queryTimeoutMs?: number;
  /** How long an idle pooled connection is kept before it is closed (default 10000 ms). */
  readonly idleTimeoutMs?: number;
  /**
   * Hears the pool's connection state, once per change: a warning `postgres connection lost` when a
   * connection dies or a statement cannot reach the database, and `postgres connection restored` when a
   * statement succeeds again. Default: silent.
   */
  readonly logger?: Logger;
}

/**
 * Creates a `pg` pool from a connection string (e.g. `postgres://user@127.0.0.1:5432/keyhold`) whose every
 * wait is bounded (see {@link PostgresPoolOptions}) and that survives its server: a connection the server
 * drops while idle is logged and replaced on the next query instead of crashing the process (node-postgres
 * emits such a drop as an `'error'` event, fatal without a listener). A string that is not a `postgres://`
 * or `postgresql://` URL, or an option that is not a positive whole number, throws `PostgresStoreError`
 * (`ERR_INVALID_OPTIONS`).
 *
 * @example
 * ```ts
 * const pool = createPostgresPool(process.env.DATABASE_URL!, { max: 10, statementTimeoutMs: 2000, logger });
 * ```
 */
export function createPostgresPool(
  connectionString: string,
  options: PostgresPoolOptions = {},
): PostgresPool {
  if (typeof connectionString !== 'string' || !/^postgres(ql)?:\/\//.test(connectionString)) {
    throw check.invalid('connectionString must be a postgres:// or postgresql:// URL');
  }
  const max = check.positiveInteger('max', options.max, 10);
  const connectionTimeoutMs = check.positiveInteger('connectionTimeoutMs', options.connectionTimeoutMs, 1500);
  const statementTimeoutMs = check.positiveInteger('statementTimeoutMs', options.statementTimeoutMs, 2000);
  const queryTimeoutMs = check.integerInRange(
    'queryTimeoutMs',
    options.queryTimeoutMs,
    statementTimeoutMs + 500,
    {
      min: statementTimeoutMs,
    },
  );
  const idleTimeoutMs = check.positiveInteger('idleTimeoutMs', options.idleTimeoutMs, 10_000);
  const pool = new pg.Pool({
    connectionString,
    max,
    connectionTimeoutMillis: connectionTimeoutMs,
    statement_timeout: statementTimeoutMs,
    query_timeout: queryTimeoutMs,
    idleTimeoutMillis: idleTimeoutMs,
    // TCP keepalive notices a peer that vanished without a FIN while a connection sits idle in the pool.
    keepAlive: true,
  });
  trackConnectionState(pool, options.logger);
  return pool;
}

/**
 * Runs `work` in one transaction on one pooled client: committed when it resolves, rolled back when it
 * throws. A lost connection fails it with `StorageUnavailableError('postgres')`, and the client it broke is
 * destroyed rather than returned to the pool.
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
  return guarded(pool, async () => {
    const client = await pool.connect();
    // A checked-out client whose connection dies between two statements emits 'error'; unheard, that
    // would end the process. Remember it instead: the client is destroyed on release.
    let broken: unknown;
    const onError = (error: unknown): void => {
      broken ??= error;
    };
    client.on('error', onError);
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      if (isConnectionFailure(error)) {
        // The server rolls back a transaction whose connection closes; a ROLLBACK on a dead or stalled
        // connection would only wait out another timeout.
        broken ??= error;
      } else if (broken === undefined) {
        await client.query('ROLLBACK').catch((rollbackError: unknown) => {
          broken = rollbackError;
        });
      }
      throw error;
    } finally {
      client.removeListener('error', onError);
      // release(error) destroys the client instead of handing a broken connection to the next caller.
      client.release(broken === undefined ? undefined : broken instanceof Error ? broken : true);
    }
  });
}
