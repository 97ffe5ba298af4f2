import { describeOAuthStorageConformance } from '@keyhold/oauth-core/testing';
import type pg from 'pg';
import { afterAll, beforeAll, describe } from 'vitest';
import { OAUTH_POSTGRES_SWEPT_TABLES } from '../src/oauth-schema.js';
import { createPostgresOAuthStorage } from '../src/oauth-store.js';
import { createIsolatedPool, requirePostgres } from './postgres.js';

const available = await requirePostgres();

describe.skipIf(!available)('PostgreSQL oauth storage', () => {
  let pool: pg.Pool;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    ({ pool, drop } = await createIsolatedPool());
  });
  afterAll(async () => {
    await drop?.();
  });

  describeOAuthStorageConformance('postgres', async () => {
    const storage = await createPostgresOAuthStorage(pool);
    // A fresh store per test, as the suite asks: empty every table (clients have no expiry column).
    const tables = ['keyhold_oauth_clients', ...OAUTH_POSTGRES_SWEPT_TABLES.map((t) => t.table)];
    await pool.query(`TRUNCATE ${tables.join(', ')}`);
    return storage;
  });
});
