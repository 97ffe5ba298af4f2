import { describeOnceStoreConformance } from '@keyhold/core/testing';
import { describe, expect, it } from 'vitest';
import { createPostgresStores } from '../src/index.js';
import { createPostgresOnceStore } from '../src/once-store.js';
import { requirePostgres, useIsolatedPool } from './postgres.js';

const available = await requirePostgres();
const NOW = 1_767_225_600_000;

describe.skipIf(!available)('PostgreSQL once store', () => {
  const db = useIsolatedPool();
  describeOnceStoreConformance('postgres', () => createPostgresOnceStore(db.pool));
});

describe.skipIf(!available)('createPostgresStores gives every store of the backend on one pool', () => {
  const db = useIsolatedPool();

  it('the oauth storage spends keys in the same once store the stores hand out, and a passed pool stays open', async () => {
    const stores = await createPostgresStores(db.pool);
    expect(stores.oauth.onceStore).toBe(stores.onceStore);
    expect(await stores.onceStore.consume('state:a', NOW + 60_000, NOW)).toBe(true);
    expect(await stores.oauth.onceStore?.consume('state:a', NOW + 60_000, NOW)).toBe(false);
    expect(await stores.checkReadiness({ timeoutMs: 2000 })).toEqual({ ok: true });
    await stores.close();
    expect((await db.pool.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  });

  it('its sweeper deletes expired spent keys', async () => {
    const stores = await createPostgresStores(db.pool);
    await stores.onceStore.consume('sweep:old', NOW - 1, NOW - 60_000);
    await stores.onceStore.consume('sweep:live', NOW + 60_000, NOW);
    const sweeper = stores.startSweeper({ intervalSeconds: 3600, clock: { now: () => NOW } });
    try {
      await sweeper.sweepNow();
    } finally {
      await sweeper.stop();
    }
    const { rows } = await db.pool.query("SELECT key FROM keyhold_once WHERE key LIKE 'sweep:%'");
    expect(rows).toEqual([{ key: 'sweep:live' }]);
  });
});
