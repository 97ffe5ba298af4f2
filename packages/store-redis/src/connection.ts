import { Redis } from 'ioredis';

/** The client type the stores accept: an ioredis `Redis` you create or one {@link createRedisClient} makes. */
export type RedisClient = Redis;

/**
 * Creates an ioredis client from a URL (`redis://127.0.0.1:6379/0`). Commands issued while the connection
 * is down fail after `commandTimeoutMs` instead of queueing forever.
 *
 * @example
 * ```ts
 * const redis = createRedisClient('redis://127.0.0.1:6379');
 * ```
 */
export function createRedisClient(url: string, options: { commandTimeoutMs?: number } = {}): RedisClient {
  return new Redis(url, {
    commandTimeout: options.commandTimeoutMs ?? 2000,
    maxRetriesPerRequest: 2,
    lazyConnect: false,
  });
}

/** Milliseconds from `now` to `expiresAt`, at least 1 so Redis never gets a zero or negative TTL. */
export function ttlMs(now: number, expiresAt: number): number {
  return Math.max(1, Math.ceil(expiresAt - now));
}
