import type { ExpirySweeper, ExpirySweeperOptions, SweptTable } from '@keyhold/store-sql-common';
import { planExpirySweep, runExpirySweeper } from '@keyhold/store-sql-common';
import type { SqliteDatabase } from './database.js';
import { SqliteStoreError } from './errors.js';

export type { ExpirySweeper, ExpirySweeperOptions, SweptTable } from '@keyhold/store-sql-common';

const invalidOptions = (message: string): Error => new SqliteStoreError('ERR_INVALID_OPTIONS', message);

function deleteBatch(db: SqliteDatabase, table: string, column: string, now: number, limit: number): number {
  return db
    .prepare(`DELETE FROM ${table} WHERE rowid IN (SELECT rowid FROM ${table} WHERE ${column} < ? LIMIT ?)`)
    .run(now, limit).changes;
}

/**
 * Deletes expired rows in bounded batches on a timer that never keeps the process alive: the same API as
 * `startExpirySweeper` of `@keyhold/store-postgres`. Lookups never depend on it (every read that cares
 * compares `expires_at` itself); it reclaims space, and removes dynamically registered clients that went
 * unused past their expiry. Rows with a NULL expiry are never deleted.
 *
 * @example
 * ```ts
 * const sweeper = startExpirySweeper(db, {
 *   tables: [...OAUTH_SQLITE_SWEPT_TABLES, ...TOKEN_VAULT_SQLITE_SWEPT_TABLES],
 *   intervalSeconds: 60,
 * });
 * await sweeper.stop();
 * ```
 */
export function startExpirySweeper(db: SqliteDatabase, options: ExpirySweeperOptions): ExpirySweeper {
  const plan = planExpirySweep(options, invalidOptions);
  return runExpirySweeper(plan, options, (table, column, now, limit) =>
    deleteBatch(db, table, column, now, limit),
  );
}

/**
 * Deletes rows whose `expires_at` (epoch ms) is before `now` from the given tables, at most `batchSize`
 * rows per table per call so a sweep never holds the write lock for long, and answers how many went.
 * The one-shot form of {@link startExpirySweeper}, kept for hosts that run their own timer.
 *
 * @example
 * ```ts
 * setInterval(() => sweepExpiredSqlite(db, OAUTH_SQLITE_SWEPT_TABLES, Date.now()), 60_000).unref();
 * ```
 */
export function sweepExpiredSqlite(
  db: SqliteDatabase,
  tables: readonly (SweptTable | string)[],
  now: number,
  batchSize = 1000,
): number {
  const plan = planExpirySweep({ tables, batchSize }, invalidOptions);
  let deleted = 0;
  for (const { table, column } of plan.tables) deleted += deleteBatch(db, table, column, now, plan.batchSize);
  return deleted;
}
