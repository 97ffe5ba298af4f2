import {
  describeGrantStoreConformance,
  describeProviderAuthorizationStoreConformance,
  describeRefreshLockConformance,
} from '@keyhold/token-vault/testing';
import { describe } from 'vitest';
import { TOKEN_VAULT_POSTGRES_SWEPT_TABLES } from '../src/token-vault-schema.js';
import {
  createPostgresGrantStore,
  createPostgresRefreshLock,
  createPostgresTokenVaultPendingStore,
} from '../src/token-vault-store.js';
import { freshStore, requirePostgres, useIsolatedPool } from './postgres.js';

const available = await requirePostgres();

describe.skipIf(!available)('PostgreSQL token-vault storage', () => {
  const db = useIsolatedPool();

  const tables = ['keyhold_vault_grants', ...TOKEN_VAULT_POSTGRES_SWEPT_TABLES.map((t) => t.table)];
  describeGrantStoreConformance('postgres', freshStore(db, tables, createPostgresGrantStore));
  describeProviderAuthorizationStoreConformance(
    'postgres',
    freshStore(db, tables, createPostgresTokenVaultPendingStore),
  );
  describeRefreshLockConformance('postgres', freshStore(db, tables, createPostgresRefreshLock));
});
