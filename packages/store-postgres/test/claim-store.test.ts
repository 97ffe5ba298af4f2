import { describeClaimStoreConformance } from '@keyhold/claim-codes/testing';
import type pg from 'pg';
import { afterAll, beforeAll, describe } from 'vitest';
import { createPostgresClaimStore } from '../src/claim-store.js';
import { createIsolatedPool, requirePostgres } from './postgres.js';

const available = await requirePostgres();

describe.skipIf(!available)('PostgreSQL claim store', () => {
  let pool: pg.Pool;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    ({ pool, drop } = await createIsolatedPool());
  });
  afterAll(async () => {
    await drop?.();
  });

  describeClaimStoreConformance('postgres', async () => {
    const store = await createPostgresClaimStore(pool);
    // The suite wants an empty store per test.
    await pool.query('TRUNCATE keyhold_claims');
    return store;
  });
});
