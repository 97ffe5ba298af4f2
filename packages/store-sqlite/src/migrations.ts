import type { SqliteDatabase } from './database.js';
import { SqliteStoreError } from './errors.js';

/** One forward-only schema step. Versions of a component start at 1 and increase by one. */
export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

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
export function migrateSqlite(db: SqliteDatabase, component: string, migrations: readonly Migration[]): void {
  migrations.forEach((migration, index) => {
    if (migration.version !== index + 1) {
      throw new SqliteStoreError(
        'ERR_MIGRATION_ORDER',
        `${component} migrations must be numbered 1, 2, 3… in order`,
      );
    }
  });
  db.exec(`CREATE TABLE IF NOT EXISTS keyhold_migrations (
    component TEXT NOT NULL, version INTEGER NOT NULL, name TEXT NOT NULL, applied_at INTEGER NOT NULL,
    PRIMARY KEY (component, version))`);
  const applied = db
    .prepare('SELECT version, name FROM keyhold_migrations WHERE component = ? ORDER BY version')
    .all(component) as { version: number; name: string }[];
  for (const row of applied) {
    const known = migrations[row.version - 1];
    if (known === undefined) {
      throw new SqliteStoreError(
        'ERR_DATABASE_NEWER',
        `the ${component} schema is at version ${row.version}, newer than this code knows; upgrade Keyhold`,
      );
    }
    if (known.name !== row.name) {
      throw new SqliteStoreError(
        'ERR_MIGRATION_DRIFT',
        `${component} migration ${row.version} was "${row.name}", code has "${known.name}"`,
      );
    }
  }
  const record = db.prepare(
    'INSERT INTO keyhold_migrations (component, version, name, applied_at) VALUES (?, ?, ?, ?)',
  );
  for (const migration of migrations.slice(applied.length)) {
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
}
