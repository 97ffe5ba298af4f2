import type { SqliteDatabase } from './database.js';
import { SqliteStoreError } from './errors.js';

const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;

/**
 * Deletes rows whose `expires_at` (epoch ms) is before `now` from the given tables, at most `batchSize`
 * rows per table per call so a sweep never holds the write lock for long, and answers how many went.
 * Stores never depend on it (every read that cares compares `expires_at` itself); it only reclaims
 * space. Call it from a timer in the host.
 *
 * @example
 * ```ts
 * setInterval(() => sweepExpiredSqlite(db, OAUTH_SQLITE_SWEPT_TABLES, Date.now()), 60_000).unref();
 * ```
 */
export function sweepExpiredSqlite(
  db: SqliteDatabase,
  tables: readonly string[],
  now: number,
  batchSize = 1000,
): number {
  let deleted = 0;
  for (const table of tables) {
    if (!IDENTIFIER.test(table)) {
      throw new SqliteStoreError('ERR_INVALID_OPTIONS', `not a plain SQL identifier: ${table}`);
    }
    const result = db
      .prepare(
        `DELETE FROM ${table} WHERE rowid IN (SELECT rowid FROM ${table} WHERE expires_at < ? LIMIT ?)`,
      )
      .run(now, batchSize);
    deleted += result.changes;
  }
  return deleted;
}
