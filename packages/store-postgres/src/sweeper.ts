import type { ExpirySweeper, ExpirySweeperOptions } from '@keyhold/store-sql-common';
import { planExpirySweep, runExpirySweeper } from '@keyhold/store-sql-common';
import type { PostgresPool } from './database.js';
import { PostgresStoreError } from './errors.js';

export type { ExpirySweeper, ExpirySweeperOptions, SweptTable } from '@keyhold/store-sql-common';

/**
 * Deletes expired rows in bounded batches on a timer that never keeps the process alive: the same API as
 * `startExpirySweeper` of `@keyhold/store-sqlite`. Lookups never depend on it: every store checks
 * `expires_at` on read; the sweeper reclaims space, and removes dynamically registered clients that went
 * unused past their expiry. Rows with a NULL expiry are never deleted. Several instances may each run
 * one: a batch deletes rows another instance already deleted as zero rows.
 *
 * @example
 * ```ts
 * const sweeper = startExpirySweeper(pool, { tables: OAUTH_POSTGRES_SWEPT_TABLES, intervalSeconds: 60 });
 * await sweeper.stop();
 * ```
 */
export function startExpirySweeper(pool: PostgresPool, options: ExpirySweeperOptions): ExpirySweeper {
  const plan = planExpirySweep(options, (message) => new PostgresStoreError('ERR_INVALID_OPTIONS', message));
  return runExpirySweeper(plan, options, async (table, column, now, limit) => {
    const result = await pool.query(
      `DELETE FROM ${table} WHERE ctid IN (SELECT ctid FROM ${table} WHERE ${column} < $1 LIMIT $2)`,
      [now, limit],
    );
    return result.rowCount ?? 0;
  });
}
