import type { RateLimiter } from '@keyhold/core';
import { redisCall } from './availability.js';
import { type RedisClient, ttlMs } from './connection.js';
import { type RedisStoreOptions, storeKeyPrefix } from './store-options.js';

/**
 * `@keyhold/core`'s `RateLimiter`, which the Redis limiter implements (the name is kept for existing imports).
 */
export type RedisRateLimiter = RateLimiter;

const COMPONENT = 'redis:limiter';

// A window is the hash {count, expiresAt}; a window whose expiresAt is at or before the caller's `now` is
// over and a new one starts. Check, reset and increment run as one atomic step.
const INCREMENT_SCRIPT = `
local expires = redis.call('HGET', KEYS[1], 'expiresAt')
if expires and tonumber(expires) > tonumber(ARGV[2]) then return redis.call('HINCRBY', KEYS[1], 'count', 1) end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'count', 1, 'expiresAt', ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1`;

/**
 * Fixed-window request counters shared by every instance (a `@keyhold/core` `RateLimiter`), so a client cannot
 * multiply its budget by spreading requests over instances. It passes `@keyhold/core/testing`'s
 * `describeRateLimiterConformance`.
 *
 * @example
 * ```ts
 * import { createAuthorizationServer } from '@keyhold/oauth-core';
 * import { createRegistryApi } from '@keyhold/registry-client/server';
 *
 * const limiter = createRedisRateLimiter(redis);
 * createRegistryApi({ providers, rateLimiter: limiter });
 * createAuthorizationServer({ baseUrl, tenants, storage, rateLimits: { limiter } });
 * ```
 */
export function createRedisRateLimiter(
  redis: RedisClient,
  options: RedisStoreOptions = {},
): RedisRateLimiter {
  const prefix = storeKeyPrefix(options, 'rate');
  return {
    async increment(key, expiresAt, nowMs) {
      return (await redisCall(COMPONENT, () =>
        redis.eval(INCREMENT_SCRIPT, 1, prefix + key, expiresAt, nowMs, ttlMs(nowMs, expiresAt)),
      )) as number;
    },
    async reset(key) {
      await redisCall(COMPONENT, () => redis.del(prefix + key));
    },
  };
}
