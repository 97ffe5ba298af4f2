import { closeSync, openSync } from 'node:fs';
import Database from 'libsql';
import { check } from './errors.js';
import { retryWhileBusy } from './start-up-retry.js';

/** The synchronous SQLite handle the stores use (libsql's better-sqlite3-compatible API). */
export type SqliteDatabase = InstanceType<typeof Database>;

/** Options of {@link openSqliteDatabase}. */
export interface OpenSqliteOptions {
  /** How long a writer waits for another process's lock before failing (default 5000 ms; 0: not at all). */
  readonly busyTimeoutMs?: number;
}

/**
 * Opens (creating if needed) one SQLite database file in WAL mode, so readers never block the writer and
 * a crashed process loses no committed transaction. Pass `':memory:'` for a throwaway database. An empty
 * path or a `busyTimeoutMs` that is not a whole number ≥ 0 throws `SqliteStoreError` (`ERR_INVALID_OPTIONS`).
 *
 * @example
 * ```ts
 * const db = openSqliteDatabase('.keyhold/keyhold.db');
 * const oauth = createSqliteOAuthStorage(db);
 * ```
 */
export function openSqliteDatabase(path: string, options: OpenSqliteOptions = {}): SqliteDatabase {
  if (typeof path !== 'string' || path === '') throw check.invalid('path must be a file path or ":memory:"');
  const busyTimeoutMs = check.integerInRange('busyTimeoutMs', options.busyTimeoutMs, 5000, { min: 0 });
  // The file holds token hashes and encrypted grants: create it readable by its owner only. SQLite gives
  // the -wal and -shm files the database file's mode, so they follow.
  if (path !== ':memory:' && !path.startsWith('file:')) closeSync(openSync(path, 'a', 0o600));
  const db = new Database(path);
  db.pragma(`busy_timeout = ${busyTimeoutMs}`);
  if (path !== ':memory:') retryWhileBusy(busyTimeoutMs, () => db.pragma('journal_mode = WAL'));
  // NORMAL is durable against a process crash in WAL mode; only an OS crash can lose the last commits.
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  return db;
}
