import type { Migration, MigrationFailure } from '@keyhold/store-sql-common';
import { checkMigrationOrder, pendingMigrations } from '@keyhold/store-sql-common';
import type pg from 'pg';
import type { PostgresPool } from './database.js';
import { withTransaction } from './database.js';
import { PostgresStoreError } from './errors.js';

/** One forward-only schema step of a component: `{ version, name, sql }`, versions from 1 up by one. */
export type PostgresMigration = Migration;

const fail: MigrationFailure = (code, message) => new PostgresStoreError(code, message);

// Migrations may wait for another instance's migrations (the advisory lock) and may rewrite or index a
// large table: far longer than the pool's per-statement bounds, which are sized for request paths. They get
// their own bound, still finite, for the transaction and for each statement's answer.
const MIGRATION_TIMEOUT_MS = 300_000;

// One fixed advisory-lock key for all Keyhold migrations, so two instances starting at once take turns.
const MIGRATION_LOCK_KEY = 0x6b657968; // "keyh"

/**
 * Applies the pending migrations of one component in one transaction under an advisory lock, so several
 * instances may start at once. Migrations only add; a database migrated by newer code, or whose recorded
 * names differ from the code's, is refused.
 *
 * @example
 * ```ts
 * await migratePostgres(pool, 'claims', [{ version: 1, name: 'create claims', sql: 'CREATE TABLE …' }]);
 * ```
 */
export async function migratePostgres(
  pool: PostgresPool,
  component: string,
  migrations: readonly PostgresMigration[],
): Promise<void> {
  checkMigrationOrder(component, migrations, fail);
  await withTransaction(pool, async (client) => {
    // query_timeout per query is read by node-postgres but missing from its QueryConfig type.
    const query = <R extends pg.QueryResultRow>(text: string, values: unknown[] = []) =>
      client.query<R>({ text, values, query_timeout: MIGRATION_TIMEOUT_MS } as pg.QueryConfig);
    await query(`SET LOCAL statement_timeout = ${MIGRATION_TIMEOUT_MS}`);
    await query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
    await query(`CREATE TABLE IF NOT EXISTS keyhold_migrations (
      component TEXT NOT NULL, version INTEGER NOT NULL, name TEXT NOT NULL,
      applied_at TIMESTAMPTZ NOT NULL DEFAULT now(), PRIMARY KEY (component, version))`);
    const { rows } = await query<{ version: number; name: string }>(
      'SELECT version, name FROM keyhold_migrations WHERE component = $1 ORDER BY version',
      [component],
    );
    for (const migration of pendingMigrations(component, migrations, rows, fail)) {
      await query(migration.sql);
      await query('INSERT INTO keyhold_migrations (component, version, name) VALUES ($1, $2, $3)', [
        component,
        migration.version,
        migration.name,
      ]);
    }
  });
}
