import { CoreError } from './errors.js';

/**
 * The counter store behind every Keyhold rate limit: fixed windows, one counter per key. The caller
 * (Keyhold's fixed-window counter) computes the window (key and absolute `expiresAt`); a store only counts and
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
 * The outcome of counting one hit against a rule: within the budget (with what is left of it), or over it
 * (with the whole seconds until the window ends, at least 1, for `Retry-After`).
 *
 * @example
 * ```ts
 * const outcome: RateLimitOutcome = { ok: false, retryAfterSeconds: 30 };
 * ```
 */
export type RateLimitOutcome = { ok: true; remaining: number } | { ok: false; retryAfterSeconds: number };
