import type { ExpirySweeper, ExpirySweeperOptions, SweptTable } from '@keyhold/store-sql-common';
import { planExpirySweep, runExpirySweeper } from '@keyhold/store-sql-common';
import { guarded } from './availability.js';
import type { PostgresPool } from './database.js';
import { check } from './errors.js';

/** A table the PostgreSQL sweeper prunes: its name and its expiry column (default `expires_at`, epoch ms). */
export type PostgresSweptTable = SweptTable;

/**
 * Options of {@link startPostgresExpirySweeper}: `tables`, `intervalSeconds` (60), `batchSize` (1000),
 * `maxBatchesPerSweep` (10), `clock`, `logger`. The same shape as `@keyhold/store-sqlite`'s.
 */
export type PostgresExpirySweeperOptions = ExpirySweeperOptions;

/** The running PostgreSQL sweeper: `sweepNow()` answers how many rows went; `stop()` waits for a sweep in progress. */
export type PostgresExpirySweeper = ExpirySweeper;

/**
 * Deletes expired rows in bounded batches on a timer that never keeps the process alive: the same API as
 * `startSqliteExpirySweeper` of `@keyhold/store-sqlite`. Lookups never depend on it: every store checks
 * `expires_at` on read; the sweeper reclaims space, and removes dynamically registered clients that went
 * unused past their expiry. Rows with a NULL expiry are never deleted. Several instances may each run
 * one: a batch deletes rows another instance already deleted as zero rows.
 *
 * @example
 * ```ts
 * const sweeper = startPostgresExpirySweeper(pool, { tables: OAUTH_POSTGRES_SWEPT_TABLES, intervalSeconds: 60 });
 * await sweeper.stop();
 * ```
 */
export function startPostgresExpirySweeper(
  pool: PostgresPool,
  options: PostgresExpirySweeperOptions,
): PostgresExpirySweeper {
  const plan = planExpirySweep(options, check);
  return runExpirySweeper(plan, options, async (table, column, now, limit) => {
    const result = await guarded(pool, () =>
      pool.query(
        `DELETE FROM ${table} WHERE ctid IN (SELECT ctid FROM ${table} WHERE ${column} < $1 LIMIT $2)`,
        [now, limit],
      ),
    );
    return result.rowCount ?? 0;
  });
}
