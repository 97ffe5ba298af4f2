import { describeClaimStoreConformance } from '@keyhold/claim-codes/testing';
import { describe } from 'vitest';
import { createPostgresClaimStore } from '../src/claim-store.js';
import { freshStore, requirePostgres, useIsolatedPool } from './postgres.js';

const available = await requirePostgres();

describe.skipIf(!available)('PostgreSQL claim store', () => {
  const db = useIsolatedPool();

  describeClaimStoreConformance('postgres', freshStore(db, ['keyhold_claims'], createPostgresClaimStore));
});
