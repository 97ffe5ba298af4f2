import type { Clock, RateLimiter, RateLimitOutcome } from '@keyhold/core';
import { assertRateLimitRule, consumeRateLimit } from '@keyhold/core';
import { optionCheck } from '../errors.js';

/**
 * The per-host budget of outbound fetches (`fetchRateLimit` of `createCimdResolver`): client metadata
 * documents and the `jwks_uri` key sets of `private_key_jwt` clients draw from one budget per host.
 *
 * @example
 * ```ts
 * import { createMemoryRateLimiter } from '@keyhold/core';
 * import { createCimdResolver } from '@keyhold/oauth-core';
 *
 * createCimdResolver({ fetchRateLimit: { limiter: createMemoryRateLimiter(), limit: 10, windowSeconds: 60 } });
 * ```
 */
export interface CimdFetchRateLimit {
  /** The counter store (memory for one process, Redis for several). */
  readonly limiter: RateLimiter;
  /** Fetches per host per window. Default 10. */
  readonly limit?: number;
  /** Window length in seconds. Default 60. */
  readonly windowSeconds?: number;
}

/** Spends one fetch from a host's budget; answers whether the fetch may go out. */
export type FetchBudget = (host: string) => Promise<RateLimitOutcome>;

/**
 * The budget of a {@link CimdFetchRateLimit}, validated here once for both resolvers. Both count under one
 * key per host (`cimd:host:<host>`), which is what makes it one budget when they share a limiter: a host
 * cannot get twice the fetches by serving documents and key sets.
 */
export function createFetchBudget(
  fetchRateLimit: CimdFetchRateLimit | undefined,
  clock: Clock,
): FetchBudget | undefined {
  if (fetchRateLimit === undefined) return undefined;
  if (typeof fetchRateLimit.limiter?.increment !== 'function') {
    throw optionCheck.invalid('fetchRateLimit.limiter must be a RateLimiter');
  }
  const rule = { limit: fetchRateLimit.limit ?? 10, windowSeconds: fetchRateLimit.windowSeconds ?? 60 };
  try {
    assertRateLimitRule('fetchRateLimit', rule);
  } catch (error) {
    throw optionCheck.invalid((error as Error).message);
  }
  const { limiter } = fetchRateLimit;
  return (host) => consumeRateLimit(limiter, { key: `cimd:host:${host}`, ...rule }, clock.now());
}
