import { randomToken } from '@keyhold/internal';
import { redisCall } from './availability.js';
import { type RedisClient, ttlMs } from './connection.js';
import { type RedisStoreOptions, storeKeyPrefix } from './store-options.js';

/** The lease contract of `@keyhold/token-vault`'s `RefreshLock`. */
export interface RedisRefreshLock {
  acquire(key: string, now: number, expiresAt: number): Promise<string | undefined>;
  release(key: string, token: string): Promise<boolean>;
}

const COMPONENT = 'redis:lock';

// A lease is the hash {token, expiresAt}. It is free when absent or when its expiresAt is at or before the
// caller's `now`; Redis's TTL only reclaims abandoned keys.
const ACQUIRE_SCRIPT = `
local expires = redis.call('HGET', KEYS[1], 'expiresAt')
if expires and tonumber(expires) > tonumber(ARGV[3]) then return 0 end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'token', ARGV[1], 'expiresAt', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 1`;

// Frees the lease only for the holder of its token, so a holder whose lease expired cannot free the lease
// of the process that took it over.
const RELEASE_SCRIPT = `
if redis.call('HGET', KEYS[1], 'token') == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

/**
 * A cross-process lease for single-flight token refresh: an atomic check-and-set to acquire, a
 * compare-and-delete to release. The holder re-reads the grant after acquiring.
 *
 * @example
 * ```ts
 * import { createTokenBroker } from '@keyhold/token-vault';
 *
 * createTokenBroker({ baseUrl, vault, providers, storage: { grants, pending, refreshLock: createRedisRefreshLock(redis) } });
 * ```
 */
export function createRedisRefreshLock(
  redis: RedisClient,
  options: RedisStoreOptions = {},
): RedisRefreshLock {
  const prefix = storeKeyPrefix(options, 'refresh-lock');
  return {
    async acquire(key, now, expiresAt) {
      const token = randomToken(18);
      const acquired = await redisCall(COMPONENT, () =>
        redis.eval(ACQUIRE_SCRIPT, 1, prefix + key, token, expiresAt, now, ttlMs(now, expiresAt)),
      );
      return acquired === 1 ? token : undefined;
    },
    async release(key, token) {
      return (await redisCall(COMPONENT, () => redis.eval(RELEASE_SCRIPT, 1, prefix + key, token))) === 1;
    },
  };
}
