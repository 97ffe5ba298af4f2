import { describeOAuthStorageConformance } from '@keyhold/oauth-core/testing';
import { afterAll } from 'vitest';
import type { SqliteDatabase } from '../src/database.js';
import { openSqliteDatabase } from '../src/database.js';
import { createSqliteOAuthStorage } from '../src/oauth-store.js';

const opened: SqliteDatabase[] = [];
afterAll(() => {
  for (const db of opened.splice(0)) db.close();
});

describeOAuthStorageConformance('sqlite (:memory:)', () => {
  const db = openSqliteDatabase(':memory:');
  opened.push(db);
  return createSqliteOAuthStorage(db);
});
