import type { OnceStore, RateLimiter } from '@keyhold/core';
import { checkRedisReadiness, type RedisReadiness, type RedisReadinessOptions } from './availability.js';
import { createRedisClient, type RedisClient, type RedisClientOptions } from './connection.js';
import { createRedisOnceStore } from './once-store.js';
import { createRedisRateLimiter } from './rate-limiter.js';
import { createRedisRefreshLock, type RedisRefreshLock } from './refresh-lock.js';
import { type RedisStoreOptions, storeKeyPrefix } from './store-options.js';

/** Options of {@link createRedisStores}: the client's (used only with a URL) and the key prefix. */
export interface RedisStoresOptions extends RedisClientOptions, RedisStoreOptions {}

/** Everything the Redis backend provides, on one client: what {@link createRedisStores} returns. */
export interface RedisStores {
  /** The client, shared by the stores below. */
  readonly client: RedisClient;
  /** The spend-once store (client assertions, MCP `requestState` ids, webhook deliveries), shared by instances. */
  readonly onceStore: OnceStore;
  /** Rate-limit counters shared by instances. */
  readonly rateLimiter: RateLimiter;
  /** token-vault's `RefreshLock`: one refresh of a grant at a time across instances. */
  readonly refreshLock: RedisRefreshLock;
  /** Whether Redis answers `PING` within `timeoutMs`, for a readiness probe; never throws. */
  checkReadiness(options?: RedisReadinessOptions): Promise<RedisReadiness>;
  /** Disconnects the client when {@link createRedisStores} opened it from a URL; a client you passed stays yours. */
  close(): Promise<void>;
}

/**
 * Every store of the Redis backend on one client (yours, or one opened from a `redis://` URL with the
 * bounded waits of `createRedisClient`), every key under `keyPrefix` (default `keyhold:`), so deployments
 * sharing a Redis never touch each other's keys.
 *
 * @example
 * ```ts
 * const shared = createRedisStores('redis://127.0.0.1:6379', { keyPrefix: 'myapp:', commandTimeoutMs: 1000 });
 * ```
 */
export function createRedisStores(
  client: RedisClient | string,
  options: RedisStoresOptions = {},
): RedisStores {
  const storeOptions = options.keyPrefix === undefined ? {} : { keyPrefix: options.keyPrefix };
  // The prefix is checked before a connection is opened, so a bad one leaves nothing running.
  storeKeyPrefix(storeOptions, 'once');
  const owned = typeof client === 'string';
  const redis = typeof client === 'string' ? createRedisClient(client, options) : client;
  return {
    client: redis,
    onceStore: createRedisOnceStore(redis, storeOptions),
    rateLimiter: createRedisRateLimiter(redis, storeOptions),
    refreshLock: createRedisRefreshLock(redis, storeOptions),
    checkReadiness: (readinessOptions) => checkRedisReadiness(redis, readinessOptions),
    close: async () => {
      if (!owned || redis.status === 'end') return;
      const ended = new Promise<void>((resolve) => redis.once('end', () => resolve()));
      redis.disconnect();
      await ended;
    },
  };
}
