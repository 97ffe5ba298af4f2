import { type RedisClient, ttlMs } from './connection.js';
import { type RedisStoreOptions, storeKeyPrefix } from './store-options.js';

/**
 * The contract of `@keyhold/oauth-core`'s `ClientAssertionReplayStore`: single use of `private_key_jwt`
 * assertion `jti` values (RFC 7523 §3).
 *
 * @example
 * ```ts
 * const replays: RedisClientAssertionReplayStore = createRedisClientAssertionReplayStore(redis);
 * ```
 */
export interface RedisClientAssertionReplayStore {
  consume(tenant: string, clientId: string, jti: string, expiresAt: number, now: number): Promise<boolean>;
}

// `SET NX PX` in spirit, but the value is the record's expiresAt, compared with the caller's `now` (stores never
// read a clock of their own, and tests move a manual one); Redis's own TTL only reclaims the key. Check and set
// run as one atomic script.
const CONSUME_SCRIPT = `
local current = redis.call('GET', KEYS[1])
if current and tonumber(current) > tonumber(ARGV[2]) then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[3])
return 1`;

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
      const consumed = await redis.eval(CONSUME_SCRIPT, 1, key, expiresAt, now, ttlMs(now, expiresAt));
      return consumed === 1;
    },
  };
}
