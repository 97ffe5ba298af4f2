import type { Logger } from '@keyhold/core';
import { silentLogger } from '@keyhold/core';
import { Redis } from 'ioredis';
import { check } from './store-options.js';

/** The client type the stores accept: an ioredis `Redis` you create or one {@link createRedisClient} makes. */
export type RedisClient = Redis;

/** Options of {@link createRedisClient}. */
export interface RedisClientOptions {
  /**
   * The longest a command waits for its answer (default 1000 ms): past it the call fails with
   * `StorageUnavailableError`, and a connection that answered nothing for that long is dropped and
   * reopened. While the connection is down, commands fail at once instead of queueing.
   */
  readonly commandTimeoutMs?: number;
  /** The longest opening a TCP connection may take (default 2000 ms); reconnection then goes on in the background. */
  readonly connectTimeoutMs?: number;
  /**
   * Hears the connection state, once per change: a warning `redis connection lost` and an info line
   * `redis connection restored`. Default: silent. Without an `'error'` listener ioredis would print
   * `[ioredis] Unhandled error event` on stderr for every failed reconnection attempt.
   */
  readonly logger?: Logger;
}

/**
 * Creates an ioredis client from a URL (`redis://127.0.0.1:6379/0`) whose every wait is bounded: a command
 * fails after `commandTimeoutMs`, and a command issued while the connection is down fails at once (the
 * client reconnects in the background). Connection errors are logged once per outage through `logger`,
 * never printed. A URL that is not `redis://` or `rediss://`, or a timeout that is not a positive whole
 * number, throws `RedisStoreError` (`ERR_INVALID_OPTIONS`).
 *
 * @example
 * ```ts
 * const redis = createRedisClient('redis://127.0.0.1:6379', { commandTimeoutMs: 1000, logger });
 * ```
 */
export function createRedisClient(url: string, options: RedisClientOptions = {}): RedisClient {
  // ioredis takes a redis:// or rediss:// URL (any case) or the path of a Unix socket.
  if (typeof url !== 'string' || !(/^rediss?:\/\//i.test(url) || url.startsWith('/'))) {
    throw check.invalid('url must be a redis:// or rediss:// URL, or the path of a Unix socket');
  }
  const commandTimeoutMs = check.positiveInteger('commandTimeoutMs', options.commandTimeoutMs, 1000);
  const connectTimeoutMs = check.positiveInteger('connectTimeoutMs', options.connectTimeoutMs, 2000);
  const logger = options.logger ?? silentLogger;
  const redis = new Redis(url, {
    commandTimeout: commandTimeoutMs,
    connectTimeout: connectTimeoutMs,
    // A connection that stops answering (a frozen server, a black-holed network) is dropped after one
    // command timeout and reopened, rather than timing out every command on it forever.
    socketTimeout: commandTimeoutMs,
    // Commands caught in a dropped connection fail (the caller already saw a timeout) instead of being
    // sent again on reconnect: a rate-limit increment or a replay claim must not run twice.
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    // Queue only the first commands, issued before the first connection is ready (see 'ready' below).
    enableOfflineQueue: true,
    lazyConnect: false,
  });
  let up = true;
  const lost = (reason: string): void => {
    if (!up) return;
    up = false;
    logger.warn({ component: 'redis', reason }, 'redis connection lost');
  };
  redis.on('error', (error: Error) => lost((error as { code?: string }).code ?? error.message));
  // 'reconnecting' also covers a clean close by the server (a restart), which emits no 'error'.
  redis.on('reconnecting', () => lost('connection closed'));
  redis.on('ready', () => {
    // From the first ready on, a command issued while the connection is down fails at once instead of
    // waiting in an offline queue for a server that may not come back within the command timeout.
    redis.options.enableOfflineQueue = false;
    if (up) return;
    up = true;
    logger.info({ component: 'redis' }, 'redis connection restored');
  });
  return redis;
}

/** Milliseconds from `now` to `expiresAt`, at least 1 so Redis never gets a zero or negative TTL. */
export function ttlMs(now: number, expiresAt: number): number {
  return Math.max(1, Math.ceil(expiresAt - now));
}
