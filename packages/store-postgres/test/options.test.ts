import { describe, expect, it } from 'vitest';
import { createPostgresPool, PostgresStoreError, startPostgresExpirySweeper } from '../src/index.js';

const invalidOption = (name: string) =>
  expect.objectContaining({ code: 'ERR_INVALID_OPTIONS', message: expect.stringContaining(name) });

describe('every PostgreSQL factory checks its options once, at creation, with PostgresStoreError', () => {
  it('createPostgresPool refuses a connection string that is not a postgres URL, and a bad max', () => {
    expect(() => createPostgresPool('mysql://127.0.0.1/test')).toThrow(PostgresStoreError);
    expect(() => createPostgresPool('mysql://127.0.0.1/test')).toThrow(invalidOption('connectionString'));
    for (const max of [0, -1, 2.5]) {
      expect(() => createPostgresPool('postgres://127.0.0.1/test', { max })).toThrow(invalidOption('max'));
    }
  });

  it('startPostgresExpirySweeper refuses bad bounds and non-identifier names before touching the pool', () => {
    const pool = createPostgresPool('postgres://127.0.0.1/test');
    expect(() => startPostgresExpirySweeper(pool, { tables: [], intervalSeconds: 0 })).toThrow(
      invalidOption('intervalSeconds'),
    );
    expect(() => startPostgresExpirySweeper(pool, { tables: ['a;b'] })).toThrow(PostgresStoreError);
  });
});
