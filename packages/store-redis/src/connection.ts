import { Redis } from 'ioredis';
import { check } from './store-options.js';

/** The client type the stores accept: an ioredis `Redis` you create or one {@link createRedisClient} makes. */
export type RedisClient = Redis;

/** Options of {@link createRedisClient}. */
export interface RedisClientOptions {
  /** How long a command may wait, e.g. while the connection is down, before it fails (default 2000 ms). */
  readonly commandTimeoutMs?: number;
}

/**
 * Creates an ioredis client from a URL (`redis://127.0.0.1:6379/0`). Commands issued while the connection
 * is down fail after `commandTimeoutMs` instead of queueing forever. A URL that is not `redis://` or
 * `rediss://`, or a `commandTimeoutMs` that is not a positive whole number, throws `RedisStoreError`
 * (`ERR_INVALID_OPTIONS`).
 *
 * @example
 * ```ts
 * const redis = createRedisClient('redis://127.0.0.1:6379');
 * ```
 */
export function createRedisClient(url: string, options: RedisClientOptions = {}): RedisClient {
  // ioredis takes a redis:// or rediss:// URL (any case) or the path of a Unix socket.
  if (typeof url !== 'string' || !(/^rediss?:\/\//i.test(url) || url.startsWith('/'))) {
    throw check.invalid('url must be a redis:// or rediss:// URL, or the path of a Unix socket');
  }
  const commandTimeoutMs = check.positiveInteger('commandTimeoutMs', options.commandTimeoutMs, 2000);
  return new Redis(url, {
    commandTimeout: commandTimeoutMs,
    maxRetriesPerRequest: 2,
    lazyConnect: false,
  });
}

/** Milliseconds from `now` to `expiresAt`, at least 1 so Redis never gets a zero or negative TTL. */
export function ttlMs(now: number, expiresAt: number): number {
  return Math.max(1, Math.ceil(expiresAt - now));
}
