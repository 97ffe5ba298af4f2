import { expectGrantSweep } from '@keyhold/store-sql-common/testing';
import { describe, it } from 'vitest';
import { OAUTH_SQLITE_SWEPT_TABLES } from '../src/oauth-schema.js';
import { createSqliteOAuthStorage } from '../src/oauth-store.js';
import { startSqliteExpirySweeper } from '../src/sweeper.js';
import { temporaryDatabases } from './temp-database.js';

const databases = temporaryDatabases();
const NOW = 1_767_225_600_000;

describe('the expiry sweep deletes grants past the expiresAt the server set, and only those', () => {
  it('removes a revoked grant and a long-unused one once due, keeps a due-later one and rows without expiresAt', async () => {
    const db = databases.memory();
    const sweeper = startSqliteExpirySweeper(db, {
      tables: OAUTH_SQLITE_SWEPT_TABLES,
      clock: { now: () => NOW },
    });
    try {
      await expectGrantSweep(createSqliteOAuthStorage(db), NOW, () => sweeper.sweepNow());
    } finally {
      await sweeper.stop();
    }
  });
});
