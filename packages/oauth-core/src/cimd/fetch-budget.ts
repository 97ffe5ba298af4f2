import type { Clock, RateLimiter, RateLimitOutcome } from '@keyhold/core';
import { assertRateLimitRule, consumeRateLimit, sha256Base64url } from '@keyhold/internal';
import { optionCheck } from '../errors.js';

/**
 * The budgets of outbound fetches (`cimd.fetchRateLimit` of the server) for client metadata documents
 * and the `jwks_uri` key sets of `private_key_jwt` clients. Two budgets, so that a stranger cannot spend
 * another client's:
 * - a first fetch (a URL never fetched successfully, or forgotten) is charged to whoever asks: `limit`
 *   fetches per requesting address (the request's `ip`) per host;
 * - a refetch on behalf of a known client (revalidating a cached document, refreshing a key set that was
 *   fetched before) is charged to that URL alone: `knownLimit` fetches per URL.
 *
 * @example
 * ```ts
 * import { createMemoryRateLimiter } from '@keyhold/core';
 * import { createAuthorizationServer } from '@keyhold/oauth-core';
 *
 * createAuthorizationServer({
 *   ...options,
 *   cimd: { fetchRateLimit: { limiter: createMemoryRateLimiter(), limit: 10, windowSeconds: 60 } },
 * });
 * ```
 */
export interface CimdFetchRateLimit {
  /** The counter store (memory for one process, Redis for several). */
  readonly limiter: RateLimiter;
  /** First fetches per requesting address per host per window. Default 10. */
  readonly limit?: number;
  /** Window length in seconds. Default 60. */
  readonly windowSeconds?: number;
  /** Refetches of one document or key set fetched successfully before, per window. Default 10. */
  readonly knownLimit?: number;
}

/** On whose behalf a fetch goes out. */
export interface FetchFor {
  /** The address of the request that needs the fetch (`HandlerRequest.ip`); absent: one shared bucket. */
  readonly requesterIp?: string | undefined;
  /** True when the URL was fetched successfully before (a revalidation or a key-set refresh). */
  readonly known: boolean;
}

/** Spends one fetch of `url` (on `host`) from the budget it belongs to; answers whether it may go out. */
export type FetchBudget = (url: string, host: string, on: FetchFor) => Promise<RateLimitOutcome>;

// Keys carry request-supplied values: long or odd ones are hashed so a key stays short and printable.
function keyPart(value: string): string {
  return value.length <= 128 && /^[\x21-\x7e]+$/.test(value) ? value : `h.${sha256Base64url(value)}`;
}

/**
 * The budgets of a {@link CimdFetchRateLimit}, validated here once for both resolvers. Both count under the
 * same keys (`cimd:first:<host>:<ip>`, `cimd:known:<url>`), which is what makes them one budget when they
 * share a limiter: a requester cannot get twice the fetches by asking for documents and key sets.
 */
export function createFetchBudget(
  fetchRateLimit: CimdFetchRateLimit | undefined,
  clock: Clock,
): FetchBudget | undefined {
  if (fetchRateLimit === undefined) return undefined;
  if (typeof fetchRateLimit.limiter?.increment !== 'function') {
    throw optionCheck.invalid('fetchRateLimit.limiter must be a RateLimiter');
  }
  const windowSeconds = fetchRateLimit.windowSeconds ?? 60;
  const first = { limit: fetchRateLimit.limit ?? 10, windowSeconds };
  try {
    assertRateLimitRule('fetchRateLimit', first);
  } catch (error) {
    throw optionCheck.invalid((error as Error).message);
  }
  const known = {
    limit: optionCheck.positiveInteger('fetchRateLimit.knownLimit', fetchRateLimit.knownLimit, 10),
    windowSeconds,
  };
  const { limiter } = fetchRateLimit;
  return (url, host, on) =>
    on.known
      ? consumeRateLimit(limiter, { key: `cimd:known:${keyPart(url)}`, ...known }, clock.now())
      : consumeRateLimit(
          limiter,
          { key: `cimd:first:${keyPart(host)}:${keyPart(on.requesterIp ?? 'unknown')}`, ...first },
          clock.now(),
        );
}
