import { redisCall } from './availability.js';
import type { RedisClient } from './connection.js';
import { claimUntilExpiry } from './single-use-claim.js';
import { type RedisStoreOptions, storeKeyPrefix } from './store-options.js';

/**
 * The contract of `@keyhold/oauth-core`'s `ClientAssertionReplayStore`: single use of `private_key_jwt`
 * assertion `jti` values (RFC 7523 §3).
 */
export interface RedisClientAssertionReplayStore {
  consume(tenant: string, clientId: string, jti: string, expiresAt: number, now: number): Promise<boolean>;
}

/**
 * Remembers accepted client-assertion `jti` values across instances: one atomic script sets the key with a
 * `PX` time to live unless it holds an unexpired record, so of concurrent requests presenting one assertion
 * exactly one is accepted. The key lives until the assertion expires (`expiresAt - now`, from the caller's
 * clock). Put it in the authorization server's storage as `clientAssertionReplays` (e.g. over a PostgreSQL
 * store).
 *
 * @example
 * ```ts
 * const storage = { ...(await createPostgresOAuthStorage(pool)), clientAssertionReplays: createRedisClientAssertionReplayStore(redis) };
 * ```
 */
export function createRedisClientAssertionReplayStore(
  redis: RedisClient,
  options: RedisStoreOptions = {},
): RedisClientAssertionReplayStore {
  const prefix = storeKeyPrefix(options, 'client-assertion-jti');
  return {
    async consume(tenant, clientId, jti, expiresAt, now) {
      // The parts are length-prefixed so no choice of ids can make two triples share a key.
      const key = `${prefix}${tenant.length}:${tenant}:${clientId.length}:${clientId}:${jti}`;
      return redisCall('redis:assertion-replay', () => claimUntilExpiry(redis, key, expiresAt, now));
    },
  };
}
