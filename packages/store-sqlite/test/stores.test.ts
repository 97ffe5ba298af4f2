import { describeOnceStoreConformance } from '@keyhold/core/testing';
import { describe, expect, it } from 'vitest';
import { createSqliteStores } from '../src/index.js';
import { createSqliteOnceStore } from '../src/once-store.js';
import { temporaryDatabases } from './temp-database.js';

const databases = temporaryDatabases();
const NOW = 1_767_225_600_000;

describeOnceStoreConformance('sqlite', () => createSqliteOnceStore(databases.memory()));

describe('createSqliteStores gives every store of the backend on one database', () => {
  it('the oauth storage spends keys in the same once store the stores hand out', async () => {
    const stores = createSqliteStores(databases.memory());
    expect(stores.oauth.onceStore).toBe(stores.onceStore);
    expect(await stores.onceStore.consume('state:a', NOW + 60_000, NOW)).toBe(true);
    expect(await stores.oauth.onceStore?.consume('state:a', NOW + 60_000, NOW)).toBe(false);
  });

  it('a second process on the same file sees the keys the first spent', async () => {
    const path = databases.path();
    const first = createSqliteStores(databases.file(path));
    const second = createSqliteStores(databases.file(path));
    expect(await first.onceStore.consume('webhook:r:1', NOW + 60_000, NOW)).toBe(true);
    expect(await second.onceStore.consume('webhook:r:1', NOW + 60_000, NOW)).toBe(false);
  });

  it('answers readiness, and its sweeper deletes expired spent keys and claims', async () => {
    const stores = createSqliteStores(databases.memory());
    expect(stores.checkReadiness()).toEqual({ ok: true });
    await stores.onceStore.consume('old', NOW - 1, NOW - 60_000);
    await stores.onceStore.consume('live', NOW + 60_000, NOW);
    const sweeper = stores.startSweeper({ intervalSeconds: 3600, clock: { now: () => NOW } });
    try {
      expect(await sweeper.sweepNow()).toBe(1);
    } finally {
      await sweeper.stop();
    }
    expect(stores.database.prepare('SELECT key FROM keyhold_once').all()).toEqual([{ key: 'live' }]);
  });
});
