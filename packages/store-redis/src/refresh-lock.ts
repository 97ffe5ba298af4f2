import { randomToken } from '@keyhold/core';
import { type RedisClient, ttlMs } from './connection.js';

/** Options shared by the Redis stores. */
export interface RedisStoreOptions {
  /** Prefix of every key this store writes (default `keyhold:`). */
  readonly keyPrefix?: string;
}

/** The lease contract of `@keyhold/token-vault`'s `RefreshLock`. */
export interface RedisRefreshLock {
  acquire(key: string, now: number, expiresAt: number): Promise<string | undefined>;
  release(key: string, token: string): Promise<boolean>;
}

// Deletes the lease only when it still holds the caller's token, so a holder whose lease expired cannot
// free the lease of the process that took it over.
const RELEASE_SCRIPT = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end`;

/**
 * A cross-process lease for single-flight token refresh: `SET key token NX PX ttl` to acquire, a
 * compare-and-delete script to release. The holder re-reads the grant after acquiring.
 *
 * @example
 * ```ts
 * createTokenBroker({ storage: { grants, pending, refreshLock: createRedisRefreshLock(redis) }, … });
 * ```
 */
export function createRedisRefreshLock(
  redis: RedisClient,
  options: RedisStoreOptions = {},
): RedisRefreshLock {
  const prefix = `${options.keyPrefix ?? 'keyhold:'}refresh-lock:`;
  return {
    async acquire(key, now, expiresAt) {
      const token = randomToken(18);
      const set = await redis.set(prefix + key, token, 'PX', ttlMs(now, expiresAt), 'NX');
      return set === 'OK' ? token : undefined;
    },
    async release(key, token) {
      const deleted = (await redis.eval(RELEASE_SCRIPT, 1, prefix + key, token)) as number;
      return deleted === 1;
    },
  };
}
