import type { OnceStore } from '@keyhold/core';
import { redisCall } from './availability.js';
import type { RedisClient } from './connection.js';
import { claimUntilExpiry } from './single-use-claim.js';
import { type RedisStoreOptions, storeKeyPrefix } from './store-options.js';

const COMPONENT = 'redis:once';

/**
 * The `OnceStore` on Redis, shared by every instance: one atomic script per `consume` (a `SET … PX` unless
 * the key holds a record unexpired by the caller's `now`), so of concurrent callers on any instance exactly
 * one wins; `release` is one `DEL`. An unreachable Redis is `StorageUnavailableError`.
 */
export function createRedisOnceStore(redis: RedisClient, options: RedisStoreOptions = {}): OnceStore {
  const prefix = storeKeyPrefix(options, 'once');
  return {
    async consume(key, expiresAt, now) {
      return redisCall(COMPONENT, () => claimUntilExpiry(redis, prefix + key, expiresAt, now));
    },
    async release(key) {
      await redisCall(COMPONENT, () => redis.del(prefix + key));
    },
  };
}
