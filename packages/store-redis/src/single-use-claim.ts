import { type RedisClient, ttlMs } from './connection.js';

// `SET NX PX` in spirit, but the value is the record's expiresAt, compared with the caller's `now` (stores never
// read a clock of their own, and tests move a manual one); Redis's own TTL only reclaims the key. Check and set
// run as one atomic script.
const CLAIM_SCRIPT = `
local current = redis.call('GET', KEYS[1])
if current and tonumber(current) > tonumber(ARGV[2]) then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[3])
return 1`;

/**
 * Claims `key` until `expiresAt` unless it holds an unexpired claim: of concurrent callers on any instance,
 * exactly one gets `true`. The single-use rule of the once store.
 */
export async function claimUntilExpiry(
  redis: RedisClient,
  key: string,
  expiresAt: number,
  now: number,
): Promise<boolean> {
  return (await redis.eval(CLAIM_SCRIPT, 1, key, expiresAt, now, ttlMs(now, expiresAt))) === 1;
}
