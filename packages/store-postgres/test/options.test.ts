import { describe, expect, it } from 'vitest';
import { createPostgresPool, PostgresStoreError } from '../src/index.js';
import { startPostgresExpirySweeper } from '../src/sweeper.js';

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

describe('createPostgresPool bounds every wait with finite timeouts, checked at creation', () => {
  it('refuses a timeout that is not a positive whole number, and a query timeout below the statement timeout', () => {
    const url = 'postgres://127.0.0.1/test';
    for (const name of ['connectionTimeoutMs', 'statementTimeoutMs', 'queryTimeoutMs', 'idleTimeoutMs']) {
      for (const value of [0, -5, 1.5, Number.POSITIVE_INFINITY]) {
        expect(() => createPostgresPool(url, { [name]: value })).toThrow(invalidOption(name));
      }
    }
    expect(() => createPostgresPool(url, { statementTimeoutMs: 3000, queryTimeoutMs: 2000 })).toThrow(
      invalidOption('queryTimeoutMs'),
    );
  });
});
