import {
  describeOAuthStorageConformance,
  describeRefreshReuseConformance,
} from '@keyhold/oauth-core/testing';
import pg from 'pg';
import { afterAll, describe } from 'vitest';
import { OAUTH_POSTGRES_SWEPT_TABLES } from '../src/oauth-schema.js';
import { createPostgresOAuthStorage } from '../src/oauth-store.js';
import { freshStore, requirePostgres, useIsolatedPool } from './postgres.js';

const available = await requirePostgres();

describe.skipIf(!available)('PostgreSQL oauth storage', () => {
  const db = useIsolatedPool();

  // Every table of the component (clients are swept too: dynamic clients expire when unused).
  const tables = OAUTH_POSTGRES_SWEPT_TABLES.map((t) => t.table);
  // A second instance has a pool of its own on the same schema, as another process would.
  const secondPools: pg.Pool[] = [];
  afterAll(async () => {
    await Promise.all(secondPools.map((pool) => pool.end()));
  });
  describeOAuthStorageConformance('postgres', freshStore(db, tables, createPostgresOAuthStorage), {
    twoInstances: async () => {
      const pool = new pg.Pool({ ...(db.pool as unknown as { options: pg.PoolConfig }).options, max: 2 });
      secondPools.push(pool);
      return [await createPostgresOAuthStorage(db.pool), await createPostgresOAuthStorage(pool)] as const;
    },
  });
  describeRefreshReuseConformance('postgres', freshStore(db, tables, createPostgresOAuthStorage));
});
