import type { Clock, Logger } from '@keyhold/core';
import { silentLogger, systemClock } from '@keyhold/core';
import type { BodyRead } from '@keyhold/internal';
import { discard, raceAbort, readCapped } from '@keyhold/internal';
import { LRUCache } from 'lru-cache';
import { parseClientJwks } from '../client-keys.js';
import { optionCheck } from '../errors.js';
import type { ClientJwk } from '../storage.js';
import { describeError, forbiddenAddressIn } from './bounded-read.js';
import { fetchCachePolicy } from './cache-control.js';
import { isHostAllowed } from './client-id-url.js';
import type { CimdFetchRateLimit, FetchFor } from './fetch-budget.js';
import { createFetchBudget } from './fetch-budget.js';
import type { CimdFetch } from './fetch-contract.js';
import { lazySafeFetch } from './lazy-safe-fetch.js';

/**
 * Options of {@link createJwksResolver}. Every limit carries its unit; all are validated at creation.
 */
export interface JwksResolverOptions {
  /**
   * The network. Default: the SSRF-safe fetch (`createSafeFetch()`), loaded on first use. `createCimdResolver` passes its own fetch, so documents and
   * key sets of metadata-document clients travel the same SSRF-safe path.
   */
  readonly fetch?: CimdFetch;
  /** Time source of cache expiry and the refetch throttle. Default: `systemClock`. */
  readonly clock?: Clock;
  /** Refusals are logged at `warn` (URL and reason, never key material). Default: silent. */
  readonly logger?: Logger;
  /** Key sets (and cached failures) kept, least recently used evicted first. Default 1000. */
  readonly maxEntries?: number;
  /** Lifetime when the response has no usable `Cache-Control`. Default 300. */
  readonly defaultMaxAgeSeconds?: number;
  /** Lower clamp of `max-age` (also used for `no-cache`/`no-store`). Default 60. */
  readonly minMaxAgeSeconds?: number;
  /** Upper clamp of `max-age`. Default 86 400. */
  readonly maxMaxAgeSeconds?: number;
  /**
   * The least time between two fetches of one set that a `refresh` (an assertion naming an unknown `kid`)
   * may force: within it the cached set is answered, so unknown kids cannot make the server hammer the
   * client's host. Default 60.
   */
  readonly refetchThrottleSeconds?: number;
  /** How long a transient failure (timeout, network error, 5xx, 429) is remembered. Default 10. */
  readonly failureTtlSeconds?: number;
  /**
   * How long a definitive failure is remembered (any other non-200 answer, a body that is not a valid JWK Set,
   * one too large, a forbidden address): the URL is not fetched again within it. Default 300.
   */
  readonly negativeTtlSeconds?: number;
  /** Whole-request limit, body included. Default 10 000. */
  readonly timeoutMs?: number;
  /** Body size limit, enforced while streaming. Default 65 536 (64 KB). */
  readonly maxBodyBytes?: number;
  /**
   * Budgets of outbound fetches (see {@link CimdFetchRateLimit}): only requests that reach the network count.
   * A first fetch of a set is charged to the requesting address for the `jwks_uri` host, a refetch of a set
   * fetched successfully before to that set's URL. Over a budget, resolution fails (`jwks_fetch_failed` in the
   * log, detail `fetch_rate_limited`) and is not remembered, so the next attempt after the window fetches.
   * `createCimdResolver` passes its own, so documents and key sets count together. Default: no limit.
   */
  readonly fetchRateLimit?: CimdFetchRateLimit;
}

/**
 * The outcome of {@link JwksResolver.resolve}. `cached` is true when no network request was made. On
 * failure, `description` is safe to show the client; `detail` is for the log only.
 */
export type JwksResolution =
  | { readonly ok: true; readonly keys: readonly ClientJwk[]; readonly cached: boolean }
  | { readonly ok: false; readonly description: string; readonly detail?: string };

/**
 * Fetches and caches the JWK Sets that `private_key_jwt` clients publish at their `jwks_uri`. Never throws
 * for a bad set or a network failure: every failure is a {@link JwksResolution}.
 *
 * @example
 * ```ts
 * const first = await jwks.resolve(uri);
 * const again = await jwks.resolve(uri, { refresh: true }); // an unknown kid: refetch, at most once per throttle
 * ```
 */
export interface JwksResolver {
  resolve(jwksUri: string, options?: JwksResolveOptions): Promise<JwksResolution>;
}

/**
 * What the authorization server tells a {@link JwksResolver} about one resolution.
 *
 * @example
 * ```ts
 * await jwks.resolve(uri, { refresh: true, allowedDomains: ['app.example'], requesterIp: request.ip });
 * ```
 */
export interface JwksResolveOptions {
  /** An assertion named an unknown `kid`: refetch the set, at most once per `refetchThrottleSeconds`. */
  readonly refresh?: boolean;
  /**
   * The hosts the set may be fetched from (exact host, or `*.example.com`), checked before any request: a
   * `jwks_uri` elsewhere is refused and an empty list fetches nothing. Absent: no host restriction (the
   * authorization server leaves it out only for clients the host provisioned itself).
   */
  readonly allowedDomains?: readonly string[];
  /** The address of the request that needs the set (`HandlerRequest.ip`): a first fetch is charged to it. */
  readonly requesterIp?: string | undefined;
}

type Failure = Extract<JwksResolution, { ok: false }>;

interface CacheEntry {
  readonly resolution: JwksResolution;
  /** The set was fetched successfully at some point (a refetch then draws from the known-client budget). */
  readonly known: boolean;
  /** When the network was last asked (the refetch throttle counts from here). */
  readonly fetchedAt: number;
  readonly freshUntil: number;
}

function failure(description: string, detail?: string): Failure {
  return detail === undefined ? { ok: false, description } : { ok: false, description, detail };
}

/**
 * The one description of every failed fetch: what the peer answered (status, body, content type, size) is
 * never told to the caller, so a `jwks_uri` cannot be used to probe other servers. The detail is logged at
 * `debug` only.
 */
const UNUSABLE = "the client's jwks_uri did not provide a usable JWK Set";

/**
 * Creates the {@link JwksResolver}: https only, through the SSRF-safe fetch by default, with a time and size
 * limit; caches each set (bounded LRU, lifetime from `Cache-Control` clamped to [`minMaxAgeSeconds`,
 * `maxMaxAgeSeconds`]); remembers transient failures for `failureTtlSeconds` and definitive ones for `negativeTtlSeconds`; joins concurrent fetches of one URL; and
 * lets `refresh` refetch a set at most once per `refetchThrottleSeconds`. With `fetchRateLimit`, fetches are
 * budgeted (first fetches per requesting address and host, refetches per URL; shared with a CIMD resolver's
 * documents when given the same limiter). With `allowedDomains`, nothing outside them is fetched.
 *
 * @example
 * ```ts
 * const jwks = createJwksResolver({ clock, logger });
 * const resolution = await jwks.resolve('https://app.example/.well-known/jwks.json');
 * if (resolution.ok) selectClientKey(resolution.keys, 'ES256', kid);
 * ```
 */
export function createJwksResolver(options: JwksResolverOptions = {}): JwksResolver {
  const fetchSet = options.fetch ?? lazySafeFetch();
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? silentLogger;
  const { maxEntries, failureTtlMs, negativeTtlMs, timeoutMs, maxBodyBytes, lifetimeMs } = fetchCachePolicy(
    options,
    {
      maxBodyBytes: 65_536,
    },
  );
  const throttleMs =
    optionCheck.positiveInteger('refetchThrottleSeconds', options.refetchThrottleSeconds, 60) * 1000;
  const fetchBudget = createFetchBudget(options.fetchRateLimit, clock);
  const cache = new LRUCache<string, CacheEntry>({ max: maxEntries });
  const inFlight = new Map<string, Promise<JwksResolution>>();

  // Only a request that reaches the network spends a budget. A refusal is not remembered as a failure: once
  // the window turns, the next resolution fetches.
  async function fetchWithinBudget(uri: string, host: string, on: FetchFor): Promise<JwksResolution> {
    if (fetchBudget !== undefined) {
      const outcome = await fetchBudget(uri, host, on);
      if (!outcome.ok) {
        return failure(
          `too many key-set fetches ${on.known ? 'of this jwks_uri' : 'for this address'}; retry in ${outcome.retryAfterSeconds} s`,
          'fetch_rate_limited',
        );
      }
    }
    return fetchAndValidate(uri, on.known);
  }

  async function fetchAndValidate(uri: string, known: boolean): Promise<JwksResolution> {
    const remember = (resolution: JwksResolution, lifetimeMs: number): JwksResolution => {
      const now = clock.now();
      cache.set(uri, {
        resolution,
        known: known || resolution.ok,
        fetchedAt: now,
        freshUntil: now + lifetimeMs,
      });
      return resolution;
    };
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new Error(`no complete answer within ${timeoutMs} ms`));
    }, timeoutMs);
    // Transient failures are retried soon, definitive ones (a 404, a set that is not valid) not for a while.
    // A set fetched successfully before gets the short lifetime whatever happened: its client is known.
    const failed = (detail: string, transient = false): JwksResolution =>
      remember(failure(UNUSABLE, detail), transient || known ? failureTtlMs : negativeTtlMs);
    const timeout = (): JwksResolution => failed(`no complete answer within ${timeoutMs} ms`, true);
    try {
      let response: Response;
      try {
        response = await raceAbort(
          fetchSet(uri, {
            method: 'GET',
            headers: { accept: 'application/jwk-set+json, application/json' },
            redirect: 'manual',
            signal: controller.signal,
          }),
          controller.signal,
        );
      } catch (error) {
        if (timedOut) return timeout();
        const forbidden = forbiddenAddressIn(error);
        if (forbidden) return failed(`forbidden address: ${forbidden.message}`);
        return failed(`fetch failed: ${describeError(error)}`, true);
      }
      if (response.status !== 200) {
        discard(response);
        return failed(`HTTP ${response.status}`, response.status >= 500 || response.status === 429);
      }
      const declaredLength = Number(response.headers.get('content-length') ?? Number.NaN);
      if (declaredLength > maxBodyBytes) {
        discard(response);
        return failed(`larger than ${maxBodyBytes} bytes (content-length: ${declaredLength})`);
      }
      let body: BodyRead;
      try {
        body = await readCapped(response, maxBodyBytes, controller.signal);
      } catch (error) {
        if (timedOut) return timeout();
        return failed(`read failed: ${describeError(error)}`, true);
      }
      if (!body.ok) return failed(`larger than ${maxBodyBytes} bytes`);
      let parsed: unknown;
      try {
        parsed = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body.bytes));
      } catch (error) {
        return failed(`not valid UTF-8 JSON: ${describeError(error)}`);
      }
      const check = parseClientJwks(parsed);
      if (!check.ok) return failed(`not a valid JWK Set: ${check.description}`);
      return remember(
        { ok: true, keys: check.jwks.keys, cached: false },
        lifetimeMs(response.headers.get('cache-control')),
      );
    } finally {
      clearTimeout(timer);
      controller.abort();
    }
  }

  return {
    async resolve(jwksUri, resolveOptions = {}) {
      let url: URL | undefined;
      try {
        url = new URL(jwksUri);
      } catch {
        url = undefined;
      }
      if (url?.protocol !== 'https:' || url.username !== '' || url.password !== '' || url.hash !== '') {
        return failure('jwks_uri must be an https URL without user information or fragment');
      }
      // The allowlist gates the network: nothing below this line runs for a host the tenant did not allow.
      const allowed = resolveOptions.allowedDomains;
      if (allowed !== undefined && !isHostAllowed(url.hostname, allowed)) {
        return failure(`the client jwks_uri host ${url.hostname} is not allowed by this server`);
      }
      const now = clock.now();
      const entry = cache.get(jwksUri);
      if (entry !== undefined) {
        const fresh = entry.freshUntil > now;
        const throttled = now - entry.fetchedAt < throttleMs;
        // A refresh goes to the network only once the throttle has passed (and never for a cached failure,
        // which has its own short lifetime).
        const refetch = resolveOptions.refresh === true && entry.resolution.ok && !throttled;
        if (fresh && !refetch) {
          return entry.resolution.ok ? { ...entry.resolution, cached: true } : entry.resolution;
        }
      }
      let pending = inFlight.get(jwksUri);
      if (!pending) {
        pending = fetchWithinBudget(jwksUri, url.hostname, {
          requesterIp: resolveOptions.requesterIp,
          known: entry?.known === true,
        }).finally(() => inFlight.delete(jwksUri));
        inFlight.set(jwksUri, pending);
      }
      const resolution = await pending;
      if (!resolution.ok) {
        // What the peer answered goes to the debug log only.
        logger.warn(
          { event: 'jwks_fetch_failed', jwksUri },
          `client JWK Set refused: ${resolution.description}`,
        );
        if (resolution.detail !== undefined) {
          logger.debug(
            { event: 'jwks_fetch_failed', jwksUri, detail: resolution.detail },
            'client JWK Set refused',
          );
        }
        // A refresh that fails (the host is down for a moment) keeps the set that is still fresh: losing it
        // would lock the client out over a kid nobody has; the throttle counts from this attempt.
        if (entry?.resolution.ok && entry.freshUntil > clock.now()) {
          cache.set(jwksUri, { ...entry, fetchedAt: clock.now() });
          return { ...entry.resolution, cached: true };
        }
      }
      return resolution;
    },
  };
}
