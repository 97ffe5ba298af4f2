import type { OnceStore } from '@keyhold/core';
import type { PostgresPool } from './database.js';
import type { PostgresMigration } from './migrations.js';
import { migratePostgres } from './migrations.js';
import { preparedStatements } from './statements.js';

/** The spend-once table; the oauth component's migration 6 creates it too, to move its old jtis in. */
export const ONCE_POSTGRES_TABLE_SQL = `
CREATE TABLE IF NOT EXISTS keyhold_once (key TEXT NOT NULL PRIMARY KEY, expires_at BIGINT NOT NULL);
CREATE INDEX IF NOT EXISTS keyhold_once_expires_at ON keyhold_once (expires_at);
`;

/** The `once` component's migrations: one table of spent keys, `expires_at` indexed for the sweeper. */
export const ONCE_POSTGRES_MIGRATIONS: readonly PostgresMigration[] = [
  { version: 1, name: 'create the spend-once table', sql: ONCE_POSTGRES_TABLE_SQL },
];

/**
 * The `OnceStore` on PostgreSQL, after running the `once` migrations. `consume` is one statement (an
 * insert, or the replacement of an expired record; a live record makes it a no-op that returns no row): the
 * primary key serialises concurrent callers, so of any number on any instance exactly one wins.
 */
export async function createPostgresOnceStore(pool: PostgresPool): Promise<OnceStore> {
  await migratePostgres(pool, 'once', ONCE_POSTGRES_MIGRATIONS);
  const statement = preparedStatements(pool, 'once');
  const consume = statement(
    'consume',
    `INSERT INTO keyhold_once (key, expires_at) VALUES ($1, $2)
     ON CONFLICT (key) DO UPDATE SET expires_at = excluded.expires_at WHERE keyhold_once.expires_at <= $3
     RETURNING 1`,
  );
  const release = statement('release', 'DELETE FROM keyhold_once WHERE key = $1');
  return {
    async consume(key, expiresAt, now) {
      return (await consume([key, expiresAt, now])).rowCount === 1;
    },
    async release(key) {
      await release([key]);
    },
  };
}
