import { type RedisClient, ttlMs } from './connection.js';
import type { RedisStoreOptions } from './refresh-lock.js';

/** The contract of `@keyhold/webhook-kit`'s `ReplayCache`. */
export interface RedisReplayCache {
  claim(key: string, expiresAt: number, now: number): Promise<boolean>;
  release(key: string): Promise<void>;
}

/**
 * Remembers accepted webhook ids across instances (`SET key 1 NX PX ttl`): of concurrent deliveries of one
 * id, exactly one is processed.
 *
 * @example
 * ```ts
 * createWebhookHandler({ modules, replayCache: createRedisReplayCache(redis) });
 * ```
 */
export function createRedisReplayCache(
  redis: RedisClient,
  options: RedisStoreOptions = {},
): RedisReplayCache {
  const prefix = `${options.keyPrefix ?? 'keyhold:'}webhook-id:`;
  return {
    async claim(key, expiresAt, now) {
      if (expiresAt <= now) return false;
      return (await redis.set(prefix + key, '1', 'PX', ttlMs(now, expiresAt), 'NX')) === 'OK';
    },
    async release(key) {
      await redis.del(prefix + key);
    },
  };
}
