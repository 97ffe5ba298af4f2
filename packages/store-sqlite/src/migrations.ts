import type { Migration, MigrationFailure } from '@keyhold/store-sql-common';
import { checkMigrationOrder, pendingMigrations } from '@keyhold/store-sql-common';
import type { SqliteDatabase } from './database.js';
import { SqliteStoreError } from './errors.js';
import { retryWhileBusy } from './start-up-retry.js';

/** One forward-only schema step of a component: `{ version, name, sql }`, versions from 1 up by one. */
export type SqliteMigration = Migration;

const fail: MigrationFailure = (code, message) => new SqliteStoreError(code, message);

/**
 * Applies the pending migrations of one component (`oauth`, `token_vault`, `claims`…) in order, each in
 * its own immediate transaction, and records them in `keyhold_migrations`. Migrations only add; a
 * database migrated by newer code, or whose recorded names differ from the code's, is refused.
 *
 * @example
 * ```ts
 * migrateSqlite(db, 'claims', [{ version: 1, name: 'create claims', sql: 'CREATE TABLE …' }]);
 * ```
 */
export function migrateSqlite(
  db: SqliteDatabase,
  component: string,
  migrations: readonly SqliteMigration[],
): void {
  checkMigrationOrder(component, migrations, fail);
  // Each step re-checks what is applied, so a step another process's start made busy is run again.
  const busyTimeoutMs = Number(db.pragma('busy_timeout', { simple: true }));
  const waitMs = Number.isFinite(busyTimeoutMs) ? busyTimeoutMs : 0;
  retryWhileBusy(waitMs, () => {
    db.exec(`CREATE TABLE IF NOT EXISTS keyhold_migrations (
      component TEXT NOT NULL, version INTEGER NOT NULL, name TEXT NOT NULL, applied_at INTEGER NOT NULL,
      PRIMARY KEY (component, version))`);
    const applied = db
      .prepare('SELECT version, name FROM keyhold_migrations WHERE component = ? ORDER BY version')
      .all(component) as { version: number; name: string }[];
    const record = db.prepare(
      'INSERT INTO keyhold_migrations (component, version, name, applied_at) VALUES (?, ?, ?, ?)',
    );
    for (const migration of pendingMigrations(component, migrations, applied, fail)) {
      db.transaction(() => {
        // Re-check inside the write lock: another process may have applied it since we read.
        const done = db
          .prepare('SELECT 1 FROM keyhold_migrations WHERE component = ? AND version = ?')
          .get(component, migration.version);
        if (done) return;
        db.exec(migration.sql);
        record.run(component, migration.version, migration.name, Date.now());
      }).immediate();
    }
  });
}
