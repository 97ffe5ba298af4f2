import type { FetchCacheOptions } from './cache-control.js';
import type { CimdFetchRateLimit } from './fetch-budget.js';
import type { CimdFetch } from './fetch-contract.js';
import type { JwksResolverOptions } from './jwks-resolver.js';

/**
 * The `cimd` option of `createAuthorizationServer`: Client ID Metadata Documents are accepted as client ids
 * (for tenants whose `allowedCimdDomains` name a host), and how documents and the `jwks_uri` key sets of
 * `private_key_jwt` clients are fetched. `cimd: {}` turns metadata-document clients on with the defaults:
 * the SSRF-safe fetch (Node, loaded on first use), 5 KB documents, cached for their `Cache-Control`
 * clamped to [60 s, 1 day]. Every limit carries its unit; all are checked when the server is created.
 *
 * @example
 * ```ts
 * import { createMemoryRateLimiter } from '@keyhold/core';
 *
 * const cimd: CimdOptions = { fetchRateLimit: { limiter: createMemoryRateLimiter() }, timeoutMs: 5000 };
 * ```
 */
export interface CimdOptions extends FetchCacheOptions {
  /**
   * The network for documents and key sets. Default: the SSRF-safe fetch, which reaches public addresses
   * over https only, checks every address a name resolves to inside the connection's own lookup and follows
   * no redirect; it needs Node's `node:dns` and `node:https` and is loaded on first use, so on a worker
   * runtime give a `fetch` of your own. A replacement owns the address checks; it receives the SSRF-safe
   * fetch as its third argument, to hand it the URLs it does not handle itself.
   *
   * @example
   * ```ts
   * const cimd: CimdOptions = {
   *   fetch: (url, init, safeFetch) =>
   *     url.startsWith('https://dev.example/') ? fetch(url.replace('https://dev.example', 'http://127.0.0.1:4567'), init) : safeFetch(url, init),
   * };
   * ```
   */
  readonly fetch?: (url: string, init: RequestInit, safeFetch: CimdFetch) => Promise<Response>;
  /**
   * Exact addresses the SSRF-safe fetch may reach although they are private (a document host inside a
   * private deployment). Default: none.
   */
  readonly allowedAddresses?: readonly string[];
  /** Extra trust anchors (PEM) of the SSRF-safe fetch, besides the system's. Default: none. */
  readonly ca?: string;
  /**
   * Budgets of outbound fetches, counted through a `RateLimiter` from `@keyhold/core`: only requests that
   * reach the network count (cache hits and requests joined to one in flight do not). A first fetch of a URL
   * is charged to the requesting address (`requesterIp`) for the URL's host (`limit`, default 10 per window);
   * a refetch of a document or key set that was fetched successfully before (revalidation, key-set refresh)
   * is charged to that URL (`knownLimit`, default 10 per window). So a stranger spends only its own budget:
   * neither another user's first sign-in nor a known client's refresh. Over a budget, resolution fails with
   * `fetch_rate_limited` and `retryAfterSeconds`, which the authorization server answers with 429 and
   * `Retry-After`. Key sets draw from the same budgets. `windowSeconds` defaults to 60. Default: no limit.
   */
  readonly fetchRateLimit?: CimdFetchRateLimit;
  /**
   * How the `jwks_uri` key sets of `private_key_jwt` clients are fetched (through this option's `fetch`, with
   * its `fetchRateLimit`): `refetchThrottleSeconds` (60), `maxBodyBytes` (65 536), `maxEntries` (1000), the
   * cache lifetimes and `timeoutMs` as for documents.
   */
  readonly jwks?: Omit<JwksResolverOptions, 'fetch' | 'clock' | 'logger' | 'fetchRateLimit'>;
}
