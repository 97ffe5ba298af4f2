import {
  describeOAuthStorageConformance,
  describeRefreshReuseConformance,
} from '@keyhold/oauth-core/testing';
import { describe } from 'vitest';
import { OAUTH_POSTGRES_SWEPT_TABLES } from '../src/oauth-schema.js';
import { createPostgresOAuthStorage } from '../src/oauth-store.js';
import { freshStore, requirePostgres, useIsolatedPool } from './postgres.js';

const available = await requirePostgres();

describe.skipIf(!available)('PostgreSQL oauth storage', () => {
  const db = useIsolatedPool();

  // Every table of the component (clients are swept too: dynamic clients expire when unused).
  const tables = OAUTH_POSTGRES_SWEPT_TABLES.map((t) => t.table);
  describeOAuthStorageConformance('postgres', freshStore(db, tables, createPostgresOAuthStorage));
  describeRefreshReuseConformance('postgres', freshStore(db, tables, createPostgresOAuthStorage));
});
