import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqliteDatabase } from '../src/database.js';
import { SqliteStoreError } from '../src/errors.js';
import { migrateSqlite } from '../src/migrations.js';

const dirs: string[] = [];
function tempDb(): string {
  const dir = mkdtempSync(join(tmpdir(), 'keyhold-sqlite-'));
  dirs.push(dir);
  return join(dir, 'keyhold.db');
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const v1 = { version: 1, name: 'create notes', sql: 'CREATE TABLE notes (id TEXT PRIMARY KEY)' };
const v2 = { version: 2, name: 'add body', sql: 'ALTER TABLE notes ADD COLUMN body TEXT' };

describe('openSqliteDatabase', () => {
  it('opens a file database in WAL mode', () => {
    const db = openSqliteDatabase(tempDb());
    expect(db.prepare('PRAGMA journal_mode').get()).toMatchObject({ journal_mode: 'wal' });
    db.close();
  });
});

describe('migrateSqlite: versioned, forward-only migrations', () => {
  it('applies pending migrations in order and only once', () => {
    const path = tempDb();
    const db = openSqliteDatabase(path);
    migrateSqlite(db, 'notes', [v1]);
    db.prepare('INSERT INTO notes (id) VALUES (?)').run('a');
    migrateSqlite(db, 'notes', [v1, v2]);
    migrateSqlite(db, 'notes', [v1, v2]);
    db.prepare('UPDATE notes SET body = ? WHERE id = ?').run('kept', 'a');
    expect(
      db
        .prepare('SELECT id, body FROM notes')
        .all()
        .map((r) => ({ ...(r as object), _metadata: undefined })),
    ).toEqual([{ id: 'a', body: 'kept', _metadata: undefined }]);
    db.close();
  });

  it('keeps components apart', () => {
    const db = openSqliteDatabase(':memory:');
    migrateSqlite(db, 'notes', [v1]);
    migrateSqlite(db, 'other', [{ version: 1, name: 'create other', sql: 'CREATE TABLE other (id TEXT)' }]);
    expect(db.prepare('SELECT count(*) AS n FROM keyhold_migrations').get()).toMatchObject({ n: 2 });
    db.close();
  });

  it('refuses a database migrated by newer code', () => {
    const db = openSqliteDatabase(':memory:');
    migrateSqlite(db, 'notes', [v1, v2]);
    expect(() => migrateSqlite(db, 'notes', [v1])).toThrowError(
      expect.objectContaining({ code: 'ERR_DATABASE_NEWER' }),
    );
    db.close();
  });

  it('refuses a recorded migration whose name differs from the code (drift)', () => {
    const db = openSqliteDatabase(':memory:');
    migrateSqlite(db, 'notes', [v1]);
    expect(() => migrateSqlite(db, 'notes', [{ ...v1, name: 'something else' }])).toThrow(SqliteStoreError);
    db.close();
  });

  it('refuses migrations that are not numbered 1, 2, 3…', () => {
    const db = openSqliteDatabase(':memory:');
    expect(() => migrateSqlite(db, 'notes', [v2])).toThrowError(
      expect.objectContaining({ code: 'ERR_MIGRATION_ORDER' }),
    );
    db.close();
  });

  it('rolls back a failing migration entirely', () => {
    const db = openSqliteDatabase(':memory:');
    const bad = { version: 1, name: 'bad', sql: 'CREATE TABLE t1 (id TEXT); CREATE TABLE t1 (id TEXT);' };
    expect(() => migrateSqlite(db, 'x', [bad])).toThrow();
    expect(db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 't1'").get()).toMatchObject({
      n: 0,
    });
    expect(db.prepare('SELECT count(*) AS n FROM keyhold_migrations').get()).toMatchObject({ n: 0 });
    db.close();
  });
});
