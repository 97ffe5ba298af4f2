import { redisCall } from './availability.js';
import { type RedisClient, ttlMs } from './connection.js';
import { type RedisStoreOptions, storeKeyPrefix } from './store-options.js';

/** The contract of `@keyhold/mcp`'s `RequestStateStore`. */
export interface RedisRequestStateStore {
  consume(id: string, expiresAt: number): Promise<boolean>;
}

/**
 * Spent MCP `requestState` ids shared by every instance: a 2026-07-28 retry is honoured once, whichever
 * instance it reaches. One `SET NX` per state, kept until the state expires.
 *
 * @example
 * ```ts
 * createMcpEndpoint({ ...options, requestStateStore: createRedisRequestStateStore(redis) });
 * ```
 */
export function createRedisRequestStateStore(
  redis: RedisClient,
  options: RedisStoreOptions = {},
): RedisRequestStateStore {
  const prefix = storeKeyPrefix(options, 'mcp-request-state');
  return {
    async consume(id, expiresAt) {
      // Redis's TTL only reclaims the key; expiry itself is decided by the endpoint's clock before this runs.
      const set = await redisCall('redis:request-state', () =>
        redis.set(prefix + id, '1', 'PX', ttlMs(Date.now(), expiresAt), 'NX'),
      );
      return set === 'OK';
    },
  };
}
