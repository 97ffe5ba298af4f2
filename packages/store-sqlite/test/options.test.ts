import { describe, expect, it } from 'vitest';
import { openSqliteDatabase, SqliteStoreError } from '../src/index.js';
import { startSqliteExpirySweeper, sweepExpiredSqlite } from '../src/sweeper.js';

const invalidOption = (name: string) =>
  expect.objectContaining({ code: 'ERR_INVALID_OPTIONS', message: expect.stringContaining(name) });

describe('every SQLite factory checks its options once, at creation, with SqliteStoreError', () => {
  it('openSqliteDatabase refuses an empty path and a busyTimeoutMs that is not a whole number ≥ 0', () => {
    expect(() => openSqliteDatabase('')).toThrow(SqliteStoreError);
    expect(() => openSqliteDatabase('')).toThrow(invalidOption('path'));
    for (const busyTimeoutMs of [-1, 1.5, Number.NaN]) {
      expect(() => openSqliteDatabase(':memory:', { busyTimeoutMs })).toThrow(invalidOption('busyTimeoutMs'));
    }
    openSqliteDatabase(':memory:', { busyTimeoutMs: 0 }).close();
  });

  it('startSqliteExpirySweeper and sweepExpiredSqlite refuse bad bounds and non-identifier names', () => {
    const db = openSqliteDatabase(':memory:');
    expect(() => startSqliteExpirySweeper(db, { tables: [], batchSize: 0 })).toThrow(SqliteStoreError);
    expect(() => startSqliteExpirySweeper(db, { tables: [], maxBatchesPerSweep: 1.5 })).toThrow(
      invalidOption('maxBatchesPerSweep'),
    );
    expect(() => sweepExpiredSqlite(db, ['x y'], 0)).toThrow(invalidOption('identifier'));
    expect(() => sweepExpiredSqlite(db, [], 0, -1)).toThrow(invalidOption('batchSize'));
    db.close();
  });
});
