import { redisCall } from './availability.js';
import type { RedisClient } from './connection.js';
import { claimUntilExpiry } from './single-use-claim.js';
import { type RedisStoreOptions, storeKeyPrefix } from './store-options.js';

const COMPONENT = 'redis:replay';

/** The contract of `@keyhold/webhook-kit`'s `ReplayCache`. */
export interface RedisReplayCache {
  claim(key: string, expiresAt: number, now: number): Promise<boolean>;
  release(key: string): Promise<void>;
}

/**
 * Remembers accepted webhook ids across instances: of concurrent deliveries of one id, exactly one is
 * processed.
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
  const prefix = storeKeyPrefix(options, 'webhook-id');
  return {
    async claim(key, expiresAt, now) {
      return redisCall(COMPONENT, () => claimUntilExpiry(redis, prefix + key, expiresAt, now));
    },
    async release(key) {
      await redisCall(COMPONENT, () => redis.del(prefix + key));
    },
  };
}
