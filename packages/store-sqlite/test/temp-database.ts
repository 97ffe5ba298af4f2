import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import type { SqliteDatabase } from '../src/database.js';
import { openSqliteDatabase } from '../src/database.js';

/**
 * Opens fresh databases for a test file — `':memory:'` or a new file in a temporary directory (WAL) — and
 * closes and deletes them after the file's tests.
 */
export function temporaryDatabases(): {
  memory(): SqliteDatabase;
  file(path?: string): SqliteDatabase;
  path(): string;
} {
  const opened: SqliteDatabase[] = [];
  let dir: string | undefined;
  afterAll(() => {
    for (const db of opened.splice(0)) db.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  let count = 0;
  const path = (): string => {
    dir ??= mkdtempSync(join(tmpdir(), 'keyhold-sqlite-'));
    count += 1;
    return join(dir, `db-${count}.db`);
  };
  const track = (db: SqliteDatabase): SqliteDatabase => {
    opened.push(db);
    return db;
  };
  return {
    memory: () => track(openSqliteDatabase(':memory:')),
    path,
    file: (at = path()) => track(openSqliteDatabase(at)),
  };
}
