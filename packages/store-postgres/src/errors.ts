import { KeyholdError } from '@keyhold/core';
import { type OptionValidators, optionValidators } from '@keyhold/internal';

/** Codes of {@link PostgresStoreError}. */
export type PostgresStoreErrorCode =
  | 'ERR_MIGRATION_ORDER'
  | 'ERR_MIGRATION_DRIFT'
  | 'ERR_DATABASE_NEWER'
  | 'ERR_INVALID_OPTIONS';

/**
 * Raised when the database and the code disagree about the schema, or options are invalid.
 *
 * @example
 * ```ts
 * try { await migratePostgres(pool, 'oauth', migrations); } catch (e) { if (e instanceof PostgresStoreError) e.code; }
 * ```
 */
export class PostgresStoreError extends KeyholdError<PostgresStoreErrorCode> {}

/** The option checks of every factory of this package: a bad option throws {@link PostgresStoreError} (`ERR_INVALID_OPTIONS`). */
export const check: OptionValidators = optionValidators(PostgresStoreError);
