import { describe, expect, it } from 'vitest';
import { migratePostgres } from '../src/migrations.js';
import { startPostgresExpirySweeper } from '../src/sweeper.js';
import { requirePostgres, useIsolatedPool } from './postgres.js';

const available = await requirePostgres();

describe.skipIf(!available)('migratePostgres: versioned, forward-only, safe under concurrent starts', () => {
  const db = useIsolatedPool();

  const v1 = {
    version: 1,
    name: 'create notes',
    sql: 'CREATE TABLE notes (id TEXT PRIMARY KEY, expires_at BIGINT NOT NULL)',
  };
  const v2 = { version: 2, name: 'add body', sql: 'ALTER TABLE notes ADD COLUMN body TEXT' };

  it('applies each migration exactly once even when five instances start at once', async () => {
    await Promise.all(Array.from({ length: 5 }, () => migratePostgres(db.pool, 'notes', [v1, v2])));
    const { rows } = await db.pool.query(
      'SELECT version FROM keyhold_migrations WHERE component = $1 ORDER BY version',
      ['notes'],
    );
    expect(rows.map((r) => r.version)).toEqual([1, 2]);
  });

  it('refuses a database migrated by newer code', async () => {
    await expect(migratePostgres(db.pool, 'notes', [v1])).rejects.toMatchObject({
      code: 'ERR_DATABASE_NEWER',
    });
  });

  it('refuses drift between recorded and coded names', async () => {
    await expect(migratePostgres(db.pool, 'notes', [v1, { ...v2, name: 'renamed' }])).rejects.toMatchObject({
      code: 'ERR_MIGRATION_DRIFT',
    });
  });

  it('rolls back a failing migration entirely', async () => {
    const bad = { version: 1, name: 'bad', sql: 'CREATE TABLE t1 (id TEXT); CREATE TABLE t1 (id TEXT);' };
    await expect(migratePostgres(db.pool, 'bad', [bad])).rejects.toThrow();
    const { rows } = await db.pool.query(
      "SELECT count(*)::int AS n FROM keyhold_migrations WHERE component = 'bad'",
    );
    expect(rows[0].n).toBe(0);
  });

  it('sweeps expired rows in bounded batches and leaves live ones', async () => {
    await db.pool.query('DELETE FROM notes');
    const now = 1_000_000;
    for (let i = 0; i < 25; i++)
      await db.pool.query('INSERT INTO notes (id, expires_at) VALUES ($1, $2)', [`old${i}`, now - 1]);
    await db.pool.query('INSERT INTO notes (id, expires_at) VALUES ($1, $2)', ['live', now + 1]);
    const sweeper = startPostgresExpirySweeper(db.pool, {
      tables: [{ table: 'notes' }],
      batchSize: 10,
      maxBatchesPerSweep: 2,
      clock: { now: () => now },
    });
    expect(await sweeper.sweepOnce()).toBe(20); // bounded: two batches of ten
    expect(await sweeper.sweepOnce()).toBe(5);
    await sweeper.stop();
    const { rows } = await db.pool.query('SELECT id FROM notes');
    expect(rows.map((r) => r.id)).toEqual(['live']);
  });
});
