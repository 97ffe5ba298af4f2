import {
  describeLoginTransactionStoreConformance,
  describeUserStoreConformance,
} from '@keyhold/oauth-core/testing';
import type pg from 'pg';
import { afterAll, beforeAll, describe } from 'vitest';
import { createPostgresLoginTransactionStore, createPostgresUserStore } from '../src/federated-store.js';
import { createIsolatedPool, requirePostgres } from './postgres.js';

const available = await requirePostgres();

describe.skipIf(!available)('PostgreSQL federated-login storage', () => {
  let pool: pg.Pool;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    ({ pool, drop } = await createIsolatedPool());
  });
  afterAll(async () => {
    await drop?.();
  });

  // The suites want an empty store per test.
  async function fresh<T>(make: (pool: pg.Pool) => Promise<T>): Promise<T> {
    const store = await make(pool);
    await pool.query('TRUNCATE keyhold_oauth_federated_identities, keyhold_oauth_login_transactions');
    return store;
  }

  describeUserStoreConformance('postgres', () => fresh(createPostgresUserStore));
  describeLoginTransactionStoreConformance('postgres', () => fresh(createPostgresLoginTransactionStore));
});
