import type { ExpirySweeper, ExpirySweeperOptions, SweptTable } from '@keyhold/store-sql-common';
import { planExpirySweep, runExpirySweeper } from '@keyhold/store-sql-common';
import type { SqliteDatabase } from './database.js';
import { check } from './errors.js';

/** A table the SQLite sweeper prunes: its name and its expiry column (default `expires_at`, epoch ms). */
export type SqliteSweptTable = SweptTable;

/**
 * Options of {@link startSqliteExpirySweeper}: `tables`, `intervalSeconds` (60), `batchSize` (1000),
 * `maxBatchesPerSweep` (10), `clock`, `logger`. The same shape as `@keyhold/store-postgres`'s.
 */
export type SqliteExpirySweeperOptions = ExpirySweeperOptions;

/** The running SQLite sweeper: `sweepNow()` answers how many rows went; `stop()` waits for a sweep in progress. */
export type SqliteExpirySweeper = ExpirySweeper;

function deleteBatch(db: SqliteDatabase, table: string, column: string, now: number, limit: number): number {
  return db
    .prepare(`DELETE FROM ${table} WHERE rowid IN (SELECT rowid FROM ${table} WHERE ${column} < ? LIMIT ?)`)
    .run(now, limit).changes;
}

/**
 * Deletes expired rows in bounded batches on a timer that never keeps the process alive: the same API as
 * `startPostgresExpirySweeper` of `@keyhold/store-postgres`. Lookups never depend on it (every read that cares
 * compares `expires_at` itself); it reclaims space, and removes dynamically registered clients that went
 * unused past their expiry. Rows with a NULL expiry are never deleted.
 *
 * @example
 * ```ts
 * const sweeper = startSqliteExpirySweeper(db, {
 *   tables: [...OAUTH_SQLITE_SWEPT_TABLES, ...TOKEN_VAULT_SQLITE_SWEPT_TABLES],
 *   intervalSeconds: 60,
 * });
 * await sweeper.stop();
 * ```
 */
export function startSqliteExpirySweeper(
  db: SqliteDatabase,
  options: SqliteExpirySweeperOptions,
): SqliteExpirySweeper {
  const plan = planExpirySweep(options, check);
  return runExpirySweeper(plan, options, (table, column, now, limit) =>
    deleteBatch(db, table, column, now, limit),
  );
}

/**
 * Deletes rows whose `expires_at` (epoch ms) is before `now` from the given tables, at most `batchSize`
 * rows per table per call so a sweep never holds the write lock for long, and answers how many went.
 * The one-shot form of {@link startSqliteExpirySweeper}, kept for hosts that run their own timer.
 *
 * @example
 * ```ts
 * setInterval(() => sweepExpiredSqlite(db, OAUTH_SQLITE_SWEPT_TABLES, Date.now()), 60_000).unref();
 * ```
 */
export function sweepExpiredSqlite(
  db: SqliteDatabase,
  tables: readonly (SqliteSweptTable | string)[],
  now: number,
  batchSize = 1000,
): number {
  const plan = planExpirySweep({ tables, batchSize }, check);
  let deleted = 0;
  for (const { table, column } of plan.tables) deleted += deleteBatch(db, table, column, now, plan.batchSize);
  return deleted;
}
