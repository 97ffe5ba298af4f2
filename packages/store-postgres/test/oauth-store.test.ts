import { describeOAuthStorageConformance } from '@keyhold/oauth-core/testing';
import { describe } from 'vitest';
import { OAUTH_POSTGRES_SWEPT_TABLES } from '../src/oauth-schema.js';
import { createPostgresOAuthStorage } from '../src/oauth-store.js';
import { freshStore, requirePostgres, useIsolatedPool } from './postgres.js';

const available = await requirePostgres();

describe.skipIf(!available)('PostgreSQL oauth storage', () => {
  const db = useIsolatedPool();

  // Every table, clients included (they have no expiry column, so are not swept).
  const tables = ['keyhold_oauth_clients', ...OAUTH_POSTGRES_SWEPT_TABLES.map((t) => t.table)];
  describeOAuthStorageConformance('postgres', freshStore(db, tables, createPostgresOAuthStorage));
});
