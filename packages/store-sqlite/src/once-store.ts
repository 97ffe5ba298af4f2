import type { OnceStore } from '@keyhold/core';
import { guardedStore } from './availability.js';
import type { SqliteDatabase } from './database.js';
import type { SqliteMigration } from './migrations.js';
import { migrateSqlite } from './migrations.js';

/** The spend-once table; the oauth component's migration 6 creates it too, to move its old jtis in. */
export const ONCE_SQLITE_TABLE_SQL = `
CREATE TABLE IF NOT EXISTS keyhold_once (key TEXT NOT NULL PRIMARY KEY, expires_at INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS keyhold_once_expires_at ON keyhold_once (expires_at);
`;

/** The `once` component's migrations: one table of spent keys, `expires_at` indexed for the sweeper. */
export const ONCE_SQLITE_MIGRATIONS: readonly SqliteMigration[] = [
  { version: 1, name: 'create the spend-once table', sql: ONCE_SQLITE_TABLE_SQL },
];

/**
 * The `OnceStore` on SQLite, after running the `once` migrations. `consume` is one statement (an insert, or
 * the replacement of an expired record; a live record makes it a no-op that returns no row), so of any
 * number of callers, in this process or another on the same file, exactly one wins.
 */
export function createSqliteOnceStore(db: SqliteDatabase): OnceStore {
  migrateSqlite(db, 'once', ONCE_SQLITE_MIGRATIONS);
  const consume = db.prepare(
    `INSERT INTO keyhold_once (key, expires_at) VALUES (?, ?)
     ON CONFLICT (key) DO UPDATE SET expires_at = excluded.expires_at WHERE keyhold_once.expires_at <= ?
     RETURNING 1 AS spent`,
  );
  const release = db.prepare('DELETE FROM keyhold_once WHERE key = ?');
  return guardedStore({
    async consume(key, expiresAt, now) {
      return consume.get(key, expiresAt, now) !== undefined;
    },
    async release(key) {
      release.run(key);
    },
  });
}
