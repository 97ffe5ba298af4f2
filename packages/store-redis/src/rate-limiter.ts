import { type RedisClient, ttlMs } from './connection.js';
import type { RedisStoreOptions } from './refresh-lock.js';

/** The counter contract of `@keyhold/registry-client/server`'s `RateLimiter`. */
export interface RedisRateLimiter {
  increment(key: string, expiresAt: number, nowMs: number): Promise<number>;
  reset(key: string): Promise<void>;
}

// INCR and the expiry of a new window in one atomic step, so a crash between them cannot leave a counter
// that never expires.
const INCREMENT_SCRIPT = `local c = redis.call('INCR', KEYS[1]) if c == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end return c`;

/**
 * Fixed-window request counters shared by every instance, so a client cannot multiply its budget by
 * spreading requests over instances.
 *
 * @example
 * ```ts
 * createRegistryApi({ providers, rateLimiter: createRedisRateLimiter(redis) });
 * ```
 */
export function createRedisRateLimiter(
  redis: RedisClient,
  options: RedisStoreOptions = {},
): RedisRateLimiter {
  const prefix = `${options.keyPrefix ?? 'keyhold:'}rate:`;
  return {
    async increment(key, expiresAt, nowMs) {
      return (await redis.eval(INCREMENT_SCRIPT, 1, prefix + key, ttlMs(nowMs, expiresAt))) as number;
    },
    async reset(key) {
      await redis.del(prefix + key);
    },
  };
}
