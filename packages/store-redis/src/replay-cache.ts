import { type RedisClient, ttlMs } from './connection.js';
import { type RedisStoreOptions, storeKeyPrefix } from './store-options.js';

/** The contract of `@keyhold/webhook-kit`'s `ReplayCache`. */
export interface RedisReplayCache {
  claim(key: string, expiresAt: number, now: number): Promise<boolean>;
  release(key: string): Promise<void>;
}

// The value is the record's expiresAt, compared with the caller's `now` (stores never read a clock of their
// own); Redis's own TTL only reclaims the key. Check and set run as one atomic step.
const CLAIM_SCRIPT = `
local current = redis.call('GET', KEYS[1])
if current and tonumber(current) > tonumber(ARGV[2]) then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[3])
return 1`;

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
      const claimed = await redis.eval(CLAIM_SCRIPT, 1, prefix + key, expiresAt, now, ttlMs(now, expiresAt));
      return claimed === 1;
    },
    async release(key) {
      await redis.del(prefix + key);
    },
  };
}
