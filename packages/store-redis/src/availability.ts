import { StorageUnavailableError } from '@keyhold/core';
import type { RedisClient } from './connection.js';

// Replies by which a live server says it cannot serve now (out of memory, a read-only replica, loading its
// data set, a busy script, no primary): an outage like a lost connection. Any other reply (a script error,
// a wrong type) is a bug and stays as it is.
const UNAVAILABLE_REPLIES = /^(OOM|READONLY|LOADING|BUSY|MASTERDOWN|CLUSTERDOWN|TRYAGAIN|NOREPLICAS)\b/;

function isOutage(error: unknown): boolean {
  if (error instanceof Error && error.name === 'ReplyError') return UNAVAILABLE_REPLIES.test(error.message);
  // Everything else ioredis rejects a command with is about the connection: timed out, closed, not
  // writable while reconnecting, retries exhausted.
  return error instanceof Error;
}

/**
 * The one place every Redis store runs its commands through: an outage becomes
 * `StorageUnavailableError(component)` (`redis:limiter`, `redis:lock`, …), its cause the driver's error.
 */
export function redisCall<T>(component: string, work: () => Promise<T>): Promise<T> {
  return work().catch((error: unknown) => {
    throw isOutage(error) ? new StorageUnavailableError(component, { cause: error }) : error;
  });
}

/** Options of {@link checkRedisReadiness}. */
export interface RedisReadinessOptions {
  /** The longest the check waits for `PING` to be answered (default 1000 ms). */
  readonly timeoutMs?: number;
}

/** What a readiness check answers: ready, or not and why (a short reason for logs, never a secret). */
export type RedisReadiness = { readonly ok: true } | { readonly ok: false; readonly reason: string };

/**
 * Whether Redis answers `PING` within `timeoutMs`, for a readiness probe. It never throws and never waits
 * longer than `timeoutMs`, whatever state the connection is in.
 *
 * @example
 * ```ts
 * const ready = await checkRedisReadiness(redis, { timeoutMs: 1000 });
 * ```
 */
export async function checkRedisReadiness(
  redis: RedisClient,
  options: RedisReadinessOptions = {},
): Promise<RedisReadiness> {
  const timeoutMs = options.timeoutMs ?? 1000;
  if (!Number.isSafeInteger(timeoutMs) || timeoutMs < 1) {
    return { ok: false, reason: 'timeoutMs must be a positive whole number' };
  }
  if (redis.status !== 'ready') return { ok: false, reason: `connection ${redis.status}` };
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<RedisReadiness>((resolve) => {
    timer = setTimeout(() => resolve({ ok: false, reason: `no answer within ${timeoutMs} ms` }), timeoutMs);
  });
  const probe = redis.ping().then(
    (): RedisReadiness => ({ ok: true }),
    (error: unknown): RedisReadiness => ({
      ok: false,
      reason: error instanceof Error ? error.message : String(error),
    }),
  );
  try {
    return await Promise.race([probe, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
