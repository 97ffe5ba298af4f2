import type { Clock } from '@keyhold/core';
import { LRUCache } from 'lru-cache';
import { optionCheck } from './errors.js';
import type { ClientRecord, ClientStore } from './storage.js';

/** How many clients one server keeps in memory at most (least recently used go first). */
export const CLIENT_CACHE_MAX_ENTRIES = 10_000;

/** The default of `clientCacheTtlSeconds`: how stale another instance's change may be seen. */
export const DEFAULT_CLIENT_CACHE_TTL_SECONDS = 5;

/** Options of {@link createCachedClientStore}. */
export interface ClientCacheOptions {
  /** How long a read client is served from memory; 0 returns the store unwrapped. */
  readonly ttlSeconds: number;
  readonly clock: Clock;
  /** Default {@link CLIENT_CACHE_MAX_ENTRIES}. */
  readonly maxEntries?: number;
}

/**
 * Wraps a {@link ClientStore} with a bounded, short-lived cache of `get`, so the token endpoint does not
 * read the client row on every request. Every write through the wrapper (`create`, `delete`, `touch`)
 * drops the client's entry once the store has it, so a client removed or changed through this server is
 * refused or seen changed at once here; a change made elsewhere (another instance, the CLI on the same
 * database) is seen within `ttlSeconds`. A read that raced with a write through the wrapper is answered
 * but not cached. Unknown clients are never cached, so made-up ids cannot fill the cache.
 *
 * @example
 * ```ts
 * const clients = createCachedClientStore(storage.clients, { ttlSeconds: 5, clock: systemClock });
 * ```
 */
export function createCachedClientStore(store: ClientStore, options: ClientCacheOptions): ClientStore {
  const { clock } = options;
  const ttlSeconds = optionCheck.integerInRange('clientCacheTtlSeconds', options.ttlSeconds, 0, { min: 0 });
  if (ttlSeconds === 0) return store;
  const cache = new LRUCache<string, ClientRecord>({
    max: options.maxEntries ?? CLIENT_CACHE_MAX_ENTRIES,
    ttl: ttlSeconds * 1000,
    // Every expiry check reads the injected clock (no timer-cached "now"), so a manual clock moves it.
    ttlResolution: 0,
    perf: { now: () => clock.now() },
  });
  // Bumped by every write; a read that started before a write does not cache what it read.
  let generation = 0;
  const keyOf = (tenant: string, clientId: string) => `${tenant}\u0000${clientId}`;
  const invalidate = (tenant: string, clientId: string) => {
    generation++;
    cache.delete(keyOf(tenant, clientId));
  };

  return {
    async get(tenant, clientId) {
      const key = keyOf(tenant, clientId);
      const cached = cache.get(key);
      if (cached !== undefined) return cached;
      const started = generation;
      const record = await store.get(tenant, clientId);
      if (record !== undefined && started === generation) cache.set(key, record);
      return record;
    },
    async create(tenant, client) {
      try {
        await store.create(tenant, client);
      } finally {
        invalidate(tenant, client.clientId);
      }
    },
    async delete(tenant, clientId) {
      try {
        await store.delete(tenant, clientId);
      } finally {
        invalidate(tenant, clientId);
      }
    },
    list: (tenant, listOptions) => store.list(tenant, listOptions),
    countDynamic: (tenant, now) => store.countDynamic(tenant, now),
    async touch(tenant, clientId, expiresAt) {
      try {
        await store.touch(tenant, clientId, expiresAt);
      } finally {
        invalidate(tenant, clientId);
      }
    },
  };
}
