import {
  describeGrantStoreConformance,
  describePendingAuthorizationStoreConformance,
  describeRefreshLockConformance,
} from '@keyhold/token-vault/testing';
import type pg from 'pg';
import { afterAll, beforeAll, describe } from 'vitest';
import { TOKEN_VAULT_POSTGRES_SWEPT_TABLES } from '../src/token-vault-schema.js';
import {
  createPostgresGrantStore,
  createPostgresRefreshLock,
  createPostgresTokenVaultPendingStore,
} from '../src/token-vault-store.js';
import { createIsolatedPool, requirePostgres } from './postgres.js';

const available = await requirePostgres();

describe.skipIf(!available)('PostgreSQL token-vault storage', () => {
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
    const tables = ['keyhold_vault_grants', ...TOKEN_VAULT_POSTGRES_SWEPT_TABLES.map((t) => t.table)];
    await pool.query(`TRUNCATE ${tables.join(', ')}`);
    return store;
  }

  describeGrantStoreConformance('postgres', () => fresh(createPostgresGrantStore));
  describePendingAuthorizationStoreConformance('postgres', () => fresh(createPostgresTokenVaultPendingStore));
  describeRefreshLockConformance('postgres', () => fresh(createPostgresRefreshLock));
});
