import { describe, expect, it } from 'vitest';
import type { MigrationFailure } from '../src/migration-plan.js';
import { checkMigrationOrder, pendingMigrations } from '../src/migration-plan.js';

class TestStoreError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}
const fail: MigrationFailure = (code, message) => new TestStoreError(code, message);

const v1 = { version: 1, name: 'create notes', sql: 'CREATE TABLE notes (id TEXT)' };
const v2 = { version: 2, name: 'add body', sql: 'ALTER TABLE notes ADD COLUMN body TEXT' };

describe('migrations are numbered 1, 2, 3… in order', () => {
  it('accepts a list in order and refuses a gap or a reordering with the store’s own error', () => {
    expect(() => checkMigrationOrder('notes', [v1, v2], fail)).not.toThrow();
    expect(() => checkMigrationOrder('notes', [v2], fail)).toThrow(TestStoreError);
    expect(() => checkMigrationOrder('notes', [v2, v1], fail)).toThrow(
      expect.objectContaining({ code: 'ERR_MIGRATION_ORDER' }),
    );
  });
});

describe('only the migrations the database has not recorded are applied', () => {
  it('answers every migration for a new database and the rest for a partly migrated one', () => {
    expect(pendingMigrations('notes', [v1, v2], [], fail)).toEqual([v1, v2]);
    expect(pendingMigrations('notes', [v1, v2], [{ version: 1, name: 'create notes' }], fail)).toEqual([v2]);
    expect(pendingMigrations('notes', [v1, v2], [v1, v2], fail)).toEqual([]);
  });

  it('refuses a database migrated by newer code', () => {
    expect(() => pendingMigrations('notes', [v1], [v1, v2], fail)).toThrow(
      expect.objectContaining({ code: 'ERR_DATABASE_NEWER' }),
    );
  });

  it('refuses a database whose recorded names differ from the code’s', () => {
    expect(() => pendingMigrations('notes', [v1, { ...v2, name: 'renamed' }], [v1, v2], fail)).toThrow(
      expect.objectContaining({ code: 'ERR_MIGRATION_DRIFT' }),
    );
  });
});
