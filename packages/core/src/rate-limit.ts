import { CoreError } from './errors.js';
import type { HandlerResult } from './handler.js';
import { jsonResult, NO_STORE_HEADERS } from './results.js';

/**
 * The counter store behind every Keyhold rate limit: fixed windows, one counter per key. The caller
 * ({@link consumeRateLimit}) computes the window (key and absolute `expiresAt`); a store only counts and
 * forgets, so a Redis store is one atomic script and never does clock maths. One limiter may serve several
 * rules and packages at once: every caller namespaces its keys (`oauth:token:client:…`, `registry:…`).
 *
 * @example
 * ```ts
 * const count = await limiter.increment('registry:203.0.113.7:29453760', 1767225660000, Date.now());
 * if (count > 100) reject();
 * ```
 */
export interface RateLimiter {
  /**
   * Adds one hit to `key` and returns the count in its window, this hit included. A counter whose
   * `expiresAt` is at or before `nowMs` counts as absent (start again at 1). Concurrent calls never lose a hit.
   */
  increment(key: string, expiresAt: number, nowMs: number): Promise<number>;
  /** Forgets `key` (an operator lifting a limit early). Unknown keys are ignored. */
  reset(key: string): Promise<void>;
}

/** Options of {@link createMemoryRateLimiter}. */
export interface MemoryRateLimiterOptions {
  /** Largest number of live counters kept; past it, expired ones are swept first, then the oldest (default 100 000). */
  maxKeys?: number;
}

/**
 * A {@link RateLimiter} in process memory: right for one instance; several instances behind one load
 * balancer need a shared store (`createRedisStores(…).rateLimiter` from `@keyhold/store-redis`) so a client cannot
 * multiply its budget. Memory is bounded by `maxKeys`; time is only what callers pass as `nowMs`, so an
 * injected clock drives it.
 *
 * @example
 * ```ts
 * import { createAuthorizationServer } from '@keyhold/oauth-core';
 *
 * const limiter = createMemoryRateLimiter({ maxKeys: 50_000 });
 * createAuthorizationServer({ baseUrl, tenants, storage, rateLimits: { limiter } });
 * ```
 */
export function createMemoryRateLimiter(options: MemoryRateLimiterOptions = {}): RateLimiter {
  const maxKeys = options.maxKeys ?? 100_000;
  if (!Number.isSafeInteger(maxKeys) || maxKeys < 1) {
    throw new CoreError('ERR_INVALID_OPTIONS', 'maxKeys must be a positive integer');
  }
  // Map iteration order is insertion order, so the first keys are the oldest windows.
  const counters = new Map<string, { count: number; expiresAt: number }>();
  const sweep = (nowMs: number) => {
    for (const [key, counter] of counters) if (counter.expiresAt <= nowMs) counters.delete(key);
    for (const key of counters.keys()) {
      if (counters.size < maxKeys) break;
      counters.delete(key);
    }
  };
  return {
    async increment(key, expiresAt, nowMs) {
      const counter = counters.get(key);
      if (counter !== undefined && counter.expiresAt > nowMs) {
        counter.count += 1;
        return counter.count;
      }
      if (counter !== undefined) counters.delete(key);
      if (counters.size >= maxKeys) sweep(nowMs);
      counters.set(key, { count: 1, expiresAt });
      return 1;
    },
    async reset(key) {
      counters.delete(key);
    },
  };
}

/**
 * One rate-limit rule: at most `limit` hits per fixed window of `windowSeconds`.
 */
export interface RateLimitRule {
  /** Hits allowed per window (a positive integer). */
  limit: number;
  /** Window length in seconds (a positive integer). */
  windowSeconds: number;
}

/**
 * What {@link consumeRateLimit} counts: a rule applied to one key.
 */
export interface RateLimitHit extends RateLimitRule {
  /** The counter's name without the window; callers namespace it (`<package>:<rule>:<kind>:<value>`). */
  key: string;
}

/**
 * The outcome of {@link consumeRateLimit}: within the budget (with what is left of it), or over it (with the
 * whole seconds until the window ends, at least 1, for `Retry-After`).
 *
 * @example
 * ```ts
 * if (!outcome.ok) return rateLimitedResult(outcome.retryAfterSeconds);
 * ```
 */
export type RateLimitOutcome = { ok: true; remaining: number } | { ok: false; retryAfterSeconds: number };

/**
 * Throws `CoreError('ERR_INVALID_OPTIONS')` unless `rule` has a positive integer `limit` and
 * `windowSeconds`; `name` prefixes the message (`rateLimits.token`). For option validation at creation.
 *
 * @example
 * ```ts
 * assertRateLimitRule('rateLimits.register', options.rateLimits.register);
 * ```
 */
export function assertRateLimitRule(name: string, rule: RateLimitRule): void {
  if (!Number.isSafeInteger(rule.limit) || rule.limit < 1) {
    throw new CoreError('ERR_INVALID_OPTIONS', `${name}.limit must be a positive integer`);
  }
  if (!Number.isSafeInteger(rule.windowSeconds) || rule.windowSeconds < 1) {
    throw new CoreError('ERR_INVALID_OPTIONS', `${name}.windowSeconds must be a positive integer`);
  }
}

/**
 * Counts one hit against a fixed-window rule. The window is `floor(nowMs / windowMs)`: the counter's key is
 * `key` suffixed with `:<window index>` and expires at the window's end, so every instance sharing the limiter
 * agrees on windows without coordination. A fixed window lets a client send up to twice the limit across a
 * boundary; one atomic increment per hit is worth that. Outages of the limiter propagate (they throw).
 *
 * @example
 * ```ts
 * const outcome = await consumeRateLimit(limiter, { key: `oauth:register:ip:${ip}`, limit: 30, windowSeconds: 60 }, clock.now());
 * if (!outcome.ok) return rateLimitedResult(outcome.retryAfterSeconds);
 * ```
 */
export async function consumeRateLimit(
  limiter: RateLimiter,
  hit: RateLimitHit,
  nowMs: number,
): Promise<RateLimitOutcome> {
  const windowMs = hit.windowSeconds * 1000;
  const index = Math.floor(nowMs / windowMs);
  const expiresAt = (index + 1) * windowMs;
  const count = await limiter.increment(`${hit.key}:${index}`, expiresAt, nowMs);
  if (count <= hit.limit) return { ok: true, remaining: hit.limit - count };
  return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((expiresAt - nowMs) / 1000)) };
}

/**
 * The answer to a request over a limit: `429 Too Many Requests` with `Retry-After` (whole seconds), an
 * RFC 6749-shaped body `{ "error": "rate_limited", "error_description" }` and `Cache-Control: no-store`.
 * `headers` are added (CORS, for example).
 *
 * @example
 * ```ts
 * if (!outcome.ok) return rateLimitedResult(outcome.retryAfterSeconds);
 * ```
 */
export function rateLimitedResult(
  retryAfterSeconds: number,
  description = `too many requests; retry in ${retryAfterSeconds} s`,
  headers: Readonly<Record<string, string>> = {},
): HandlerResult {
  return jsonResult(
    429,
    { error: 'rate_limited', error_description: description },
    { ...NO_STORE_HEADERS, ...headers, 'retry-after': String(retryAfterSeconds) },
  );
}
