import { describeClaimStoreConformance } from '@keyhold/claim-codes/testing';
import { afterAll } from 'vitest';
import { createSqliteClaimStore } from '../src/claim-store.js';
import type { SqliteDatabase } from '../src/database.js';
import { openSqliteDatabase } from '../src/database.js';

const opened: SqliteDatabase[] = [];
afterAll(() => {
  for (const db of opened.splice(0)) db.close();
});

describeClaimStoreConformance('sqlite (:memory:)', () => {
  const db = openSqliteDatabase(':memory:');
  opened.push(db);
  return createSqliteClaimStore(db);
});
