import type { RateLimiter } from './storage.js';

/** Options of {@link createMemoryRateLimiter}. */
export interface MemoryRateLimiterOptions {
  /** Largest number of live counters kept; past it, expired ones are swept first, then the oldest (default 100 000). */
  maxKeys?: number;
}

/**
 * A {@link RateLimiter} in process memory: right for one instance; several instances behind one load
 * balancer need a shared store (Redis) so a client cannot multiply its budget.
 *
 * @example
 * ```ts
 * createRegistryApi({ rateLimiter: createMemoryRateLimiter() });
 * ```
 */
export function createMemoryRateLimiter(options: MemoryRateLimiterOptions = {}): RateLimiter {
  const maxKeys = options.maxKeys ?? 100_000;
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
