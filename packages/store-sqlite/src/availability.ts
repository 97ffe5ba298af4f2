import { StorageUnavailableError } from '@keyhold/core';
import type { SqliteDatabase } from './database.js';

// Result codes by which SQLite says "not now" rather than "wrong statement": another connection holds the
// lock past busy_timeout, the disk failed or is full, the file cannot be opened. Extended codes
// (SQLITE_IOERR_WRITE, SQLITE_BUSY_SNAPSHOT, …) start with their primary code.
const UNAVAILABLE_CODES = [
  'SQLITE_BUSY',
  'SQLITE_LOCKED',
  'SQLITE_IOERR',
  'SQLITE_FULL',
  'SQLITE_CANTOPEN',
  'SQLITE_PROTOCOL',
  'SQLITE_NOMEM',
];

function isOutage(error: unknown): boolean {
  const code = error instanceof Error ? (error as { code?: unknown }).code : undefined;
  return (
    typeof code === 'string' &&
    UNAVAILABLE_CODES.some((prefix) => code === prefix || code.startsWith(`${prefix}_`))
  );
}

function mapped(error: unknown): unknown {
  return isOutage(error) ? new StorageUnavailableError('sqlite', { cause: error }) : error;
}

/**
 * The one choke point of this package's stores: every method of `store` (and of the stores nested in it,
 * as in `OAuthStorage`) turns a busy, locked or failing database into `StorageUnavailableError('sqlite')`,
 * its cause the driver's error; any other error (a constraint, a bug) passes through unchanged.
 */
export function guardedStore<T extends object>(store: T): T {
  const guarded: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(store)) {
    if (typeof value === 'function') {
      guarded[name] = (...args: unknown[]) => {
        try {
          const result: unknown = value.apply(store, args);
          return result instanceof Promise
            ? result.catch((error: unknown) => {
                throw mapped(error);
              })
            : result;
        } catch (error) {
          throw mapped(error);
        }
      };
    } else if (
      value !== null &&
      typeof value === 'object' &&
      Object.getPrototypeOf(value) === Object.prototype
    ) {
      guarded[name] = guardedStore(value);
    } else {
      guarded[name] = value;
    }
  }
  return guarded as T;
}

/** What {@link checkSqliteReadiness} answers: ready, or not and why (a short reason for logs). */
export type SqliteReadiness = { readonly ok: true } | { readonly ok: false; readonly reason: string };

/**
 * Whether the database is open and answers a read of its schema, for a readiness probe. It never throws.
 * SQLite runs in the process, so there is no network wait to bound; a read is not blocked by a writer in
 * WAL mode.
 *
 * @example
 * ```ts
 * if (!checkSqliteReadiness(db).ok) logger.warn('sqlite not ready');
 * ```
 */
export function checkSqliteReadiness(db: SqliteDatabase): SqliteReadiness {
  try {
    // Reading the schema touches the file (a bare SELECT 1 would not), so a vanished or unreadable file shows.
    db.prepare('SELECT count(*) FROM sqlite_schema').get();
    return { ok: true };
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message : String(error) };
  }
}
