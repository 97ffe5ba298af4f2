import { expectGrantSweep } from '@keyhold/store-sql-common/testing';
import { describe, it } from 'vitest';
import { OAUTH_POSTGRES_SWEPT_TABLES } from '../src/oauth-schema.js';
import { createPostgresOAuthStorage } from '../src/oauth-store.js';
import { startPostgresExpirySweeper } from '../src/sweeper.js';
import { requirePostgres, useIsolatedPool } from './postgres.js';

const available = await requirePostgres();
const NOW = 1_767_225_600_000;

describe.skipIf(!available)(
  'the expiry sweep deletes grants past the expiresAt the server set, and only those',
  () => {
    // An isolated database of its own, so the sweep sees only these rows.
    const db = useIsolatedPool();

    it('removes a revoked grant and a long-unused one once due, keeps a due-later one and rows without expiresAt', async () => {
      const storage = await createPostgresOAuthStorage(db.pool);
      const sweeper = startPostgresExpirySweeper(db.pool, {
        intervalSeconds: 3600,
        tables: OAUTH_POSTGRES_SWEPT_TABLES,
        clock: { now: () => NOW },
      });
      try {
        await expectGrantSweep(storage, NOW, () => sweeper.sweepNow());
      } finally {
        await sweeper.stop();
      }
    });
  },
);
