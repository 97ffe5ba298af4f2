/**
 * One forward-only schema step. Versions of a component start at 1 and increase by one.
 */
export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

/** Why a component's migrations cannot run; each store throws its own error class with this code. */
export type MigrationProblemCode = 'ERR_MIGRATION_ORDER' | 'ERR_DATABASE_NEWER' | 'ERR_MIGRATION_DRIFT';

/** Builds the store's error for a migration problem (the stores' error classes share these codes). */
export type MigrationFailure = (code: MigrationProblemCode, message: string) => Error;

/**
 * Refuses a migration list not numbered 1, 2, 3… in order. Run it before touching the database.
 *
 * @example
 * ```ts
 * checkMigrationOrder('claims', CLAIMS_MIGRATIONS, (code, message) => new SqliteStoreError(code, message));
 * ```
 */
export function checkMigrationOrder(
  component: string,
  migrations: readonly Migration[],
  fail: MigrationFailure,
): void {
  migrations.forEach((migration, index) => {
    if (migration.version !== index + 1) {
      throw fail('ERR_MIGRATION_ORDER', `${component} migrations must be numbered 1, 2, 3… in order`);
    }
  });
}

/**
 * Compares what `keyhold_migrations` records for a component with the code's list and answers the
 * migrations still to apply. Refuses a database migrated by newer code, or one whose recorded names differ
 * from the code's (a renamed or reordered step is never guessed at).
 *
 * @example
 * ```ts
 * const pending = pendingMigrations('claims', CLAIMS_MIGRATIONS, appliedRows, fail);
 * for (const migration of pending) apply(migration);
 * ```
 */
export function pendingMigrations(
  component: string,
  migrations: readonly Migration[],
  applied: readonly { readonly version: number; readonly name: string }[],
  fail: MigrationFailure,
): readonly Migration[] {
  for (const row of applied) {
    const known = migrations[row.version - 1];
    if (known === undefined) {
      throw fail(
        'ERR_DATABASE_NEWER',
        `the ${component} schema is at version ${row.version}, newer than this code knows; upgrade Keyhold`,
      );
    }
    if (known.name !== row.name) {
      throw fail(
        'ERR_MIGRATION_DRIFT',
        `${component} migration ${row.version} was "${row.name}", code has "${known.name}"`,
      );
    }
  }
  return migrations.slice(applied.length);
}
