import {
  describeLoginTransactionStoreConformance,
  describeUserStoreConformance,
} from '@keyhold/oauth-core/testing';
import { describe } from 'vitest';
import { createPostgresLoginTransactionStore, createPostgresUserStore } from '../src/federated-store.js';
import { freshStore, requirePostgres, useIsolatedPool } from './postgres.js';

const available = await requirePostgres();

describe.skipIf(!available)('PostgreSQL federated-login storage', () => {
  const db = useIsolatedPool();

  const tables = ['keyhold_oauth_federated_identities', 'keyhold_oauth_login_transactions'];
  describeUserStoreConformance('postgres', freshStore(db, tables, createPostgresUserStore));
  describeLoginTransactionStoreConformance(
    'postgres',
    freshStore(db, tables, createPostgresLoginTransactionStore),
  );
});
