import { KeyholdError } from '@keyhold/core';
import { type OptionValidators, optionValidators } from '@keyhold/internal';

/** Codes of {@link SqliteStoreError}. */
export type SqliteStoreErrorCode =
  | 'ERR_MIGRATION_ORDER'
  | 'ERR_MIGRATION_DRIFT'
  | 'ERR_DATABASE_NEWER'
  | 'ERR_INVALID_OPTIONS';

/**
 * Raised when the database and the code disagree about the schema: a store refuses to run rather than
 * guess.
 *
 * @example
 * ```ts
 * try {
 *   openSqliteDatabase(path);
 * } catch (error) {
 *   if (error instanceof SqliteStoreError && error.code === 'ERR_DATABASE_NEWER') console.error('upgrade Keyhold first');
 *   throw error;
 * }
 * ```
 */
export class SqliteStoreError extends KeyholdError<SqliteStoreErrorCode> {}

/** The option checks of every factory of this package: a bad option throws {@link SqliteStoreError} (`ERR_INVALID_OPTIONS`). */
export const check: OptionValidators = optionValidators(SqliteStoreError);
