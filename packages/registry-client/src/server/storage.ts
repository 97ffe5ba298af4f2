/**
 * The counter store behind the registry's per-IP rate limit: fixed windows, one counter per key. The API
 * computes the window (key and absolute `expiresAt`); a store only counts and forgets, so a Redis store is
 * `INCR` + `PEXPIREAT` and never does clock maths.
 *
 * @example
 * ```ts
 * const count = await limiter.increment('203.0.113.7:1767225600000', 1767225660000, Date.now());
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
