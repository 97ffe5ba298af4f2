import { describeTokenVaultStorageConformance } from '@keyhold/token-vault/testing';
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
  describeTokenVaultStorageConformance('postgres', {
    grants: freshStore(db, tables, createPostgresGrantStore),
    pending: freshStore(db, tables, createPostgresTokenVaultPendingStore),
    refreshLock: freshStore(db, tables, createPostgresRefreshLock),
  });
});
