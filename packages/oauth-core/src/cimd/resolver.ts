import type { Clock, Logger } from '@keyhold/core';
import { silentLogger, systemClock } from '@keyhold/core';
import type { BodyRead } from '@keyhold/internal';
import { discard, raceAbort, readCapped } from '@keyhold/internal';
import { LRUCache } from 'lru-cache';
import { defaultMetrics } from '../metrics/when-present.js';
import type { AuthMetrics } from '../metrics-types.js';
import { describeError, forbiddenAddressIn } from './bounded-read.js';
import { fetchCachePolicy } from './cache-control.js';
import { checkClientIdUrl, isHostAllowed } from './client-id-url.js';
import { checkMetadataDocument } from './document.js';
import type { FetchFor } from './fetch-budget.js';
import { createFetchBudget } from './fetch-budget.js';
import type { CimdFetch } from './fetch-contract.js';
import { createJwksResolver } from './jwks-resolver.js';
import { lazySafeFetch } from './lazy-safe-fetch.js';
import type { CimdOptions } from './options.js';
import type { CimdErrorCode, CimdResolution, CimdResolver, ClientMetadataDocument } from './types.js';

/**
 * Options of {@link createCimdResolver}: the server's `cimd` option (its tuning, see {@link CimdOptions}) with
 * the network, clock, logger and metrics resolved.
 */
export interface CimdResolverOptions extends Omit<CimdOptions, 'fetch' | 'allowedAddresses' | 'ca'> {
  /** The network. Default: the SSRF-safe fetcher, loaded on first use. A replacement owns the address checks. */
  readonly fetch?: CimdFetch;
  /** Time source for cache expiry. Default: `systemClock`. */
  readonly clock?: Clock;
  /** Refusals are logged at `warn` with the detail. Default: silent. */
  readonly logger?: Logger;
  /**
   * Receives one `cimdFetch` per resolution attempt. Default: the `mcp_auth.cimd.fetches` counter through
   * `@opentelemetry/api` when it is installed, nothing when it is not.
   */
  readonly metrics?: AuthMetrics;
}

type Failure = Extract<CimdResolution, { ok: false }>;

interface DocumentEntry {
  readonly document: ClientMetadataDocument;
  readonly etag: string | undefined;
  readonly freshUntil: number;
}

interface FailureEntry {
  readonly failure: Failure;
  readonly freshUntil: number;
}

interface Attempt {
  readonly resolution: CimdResolution;
  readonly cached: boolean;
}

// Transient failures (the host is down or slow for a moment) are retried soon; definitive ones (a 404, a
// document that is not valid) are not fetched again for negativeTtlSeconds.
const TRANSIENT: readonly CimdErrorCode[] = ['timeout', 'fetch_failed'];

function failure(error: CimdErrorCode, description: string, detail?: string): Failure {
  return detail === undefined ? { ok: false, error, description } : { ok: false, error, description, detail };
}

/**
 * Creates the resolver of Client ID Metadata Documents (MCP 2025-11-25): checks the URL rules and the tenant's
 * domain allowlist before any network request, fetches through the SSRF-safe fetcher with a time and size limit,
 * validates the document, caches it (bounded LRU, lifetime from `Cache-Control` clamped to
 * [`minMaxAgeSeconds`, `maxMaxAgeSeconds`]), revalidates a stale entry with `If-None-Match`, remembers transient
 * failures for `failureTtlSeconds` and definitive ones (a 404, an invalid document) for `negativeTtlSeconds`, and joins concurrent resolutions of one URL into one request. With
 * `fetchRateLimit`, fetches are budgeted (`fetch_rate_limited`): first fetches per requesting address and host,
 * refetches of known documents per URL, documents and `jwks` key sets alike. Never throws for a bad document
 * or network failure: every failure is a {@link CimdResolution} with one {@link CimdErrorCode} (an outage of the
 * rate limiter's store does throw, like any storage outage). Its `jwks` fetches the `jwks_uri` key sets of
 * `private_key_jwt` clients through the same `fetch`.
 *
 * @example
 * ```ts
 * const resolver = createCimdResolver({ logger, metrics });
 * const resolution = await resolver.resolve(clientId, { allowedDomains: tenant.cimdDomains });
 * if (!resolution.ok) return invalidClient(resolution.description);
 * ```
 */
export function createCimdResolver(options: CimdResolverOptions = {}): Required<CimdResolver> {
  const fetchDocument = options.fetch ?? lazySafeFetch();
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? silentLogger;
  const metrics = options.metrics ?? defaultMetrics();
  const {
    maxEntries,
    failureTtlMs,
    negativeTtlMs,
    timeoutMs,
    maxBodyBytes,
    lifetimeMs: lifetimeFor,
  } = fetchCachePolicy(options, { maxBodyBytes: 5120 });
  const fetchBudget = createFetchBudget(options.fetchRateLimit, clock);

  const documents = new LRUCache<string, DocumentEntry>({ max: maxEntries });
  const failures = new LRUCache<string, FailureEntry>({ max: maxEntries });
  const inFlight = new Map<string, Promise<Attempt>>();

  const lifetimeMs = (response: Response): number => lifetimeFor(response.headers.get('cache-control'));

  const remember = (
    clientId: string,
    result: Failure,
    transient = TRANSIENT.includes(result.error),
  ): Attempt => {
    // A document that was there before gets the short lifetime whatever happened: its client is known.
    const ttl = transient || documents.has(clientId) ? failureTtlMs : negativeTtlMs;
    failures.set(clientId, { failure: result, freshUntil: clock.now() + ttl });
    return { resolution: result, cached: false };
  };
  const keep = (clientId: string, entry: DocumentEntry): void => {
    documents.set(clientId, entry);
    failures.delete(clientId);
  };

  async function fetchAndValidate(clientId: string, stale: DocumentEntry | undefined): Promise<Attempt> {
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new Error(`no complete answer within ${timeoutMs} ms`));
    }, timeoutMs);
    const timeoutFailure = (): Failure =>
      failure('timeout', `fetching the client metadata document took longer than ${timeoutMs} ms`);
    const revalidating = stale?.etag !== undefined ? stale : undefined;
    try {
      const headers: Record<string, string> = { accept: 'application/json' };
      if (revalidating?.etag !== undefined) headers['if-none-match'] = revalidating.etag;
      let response: Response;
      try {
        response = await raceAbort(
          fetchDocument(clientId, { method: 'GET', headers, redirect: 'manual', signal: controller.signal }),
          controller.signal,
        );
      } catch (error) {
        if (timedOut) return remember(clientId, timeoutFailure());
        const forbidden = forbiddenAddressIn(error);
        if (forbidden) {
          return remember(
            clientId,
            failure(
              'forbidden_address',
              'the client_id host resolves to an address this server does not fetch from',
              forbidden.message,
            ),
          );
        }
        return remember(
          clientId,
          failure('fetch_failed', 'the client metadata document could not be fetched', describeError(error)),
        );
      }

      if (response.status === 304 && revalidating) {
        discard(response);
        const etag = response.headers.get('etag') ?? revalidating.etag;
        const freshUntil = clock.now() + lifetimeMs(response);
        keep(clientId, { document: revalidating.document, etag, freshUntil });
        return { resolution: { ok: true, document: revalidating.document, cached: true }, cached: true };
      }
      if (response.status !== 200) {
        discard(response);
        const location = response.headers.get('location');
        return remember(
          clientId,
          failure(
            'http_error',
            `the client metadata document URL answered HTTP ${response.status}${
              response.status >= 300 && response.status < 400 ? ' (redirects are not followed)' : ''
            }`,
            location === null ? undefined : `location: ${location}`,
          ),
          response.status >= 500 || response.status === 429,
        );
      }
      const declaredLength = Number(response.headers.get('content-length') ?? Number.NaN);
      const tooLarge = (detail: string): Failure =>
        failure('too_large', `the client metadata document is larger than ${maxBodyBytes} bytes`, detail);
      if (declaredLength > maxBodyBytes) {
        discard(response);
        return remember(clientId, tooLarge(`content-length: ${declaredLength}`));
      }
      let body: BodyRead;
      try {
        body = await readCapped(response, maxBodyBytes, controller.signal);
      } catch (error) {
        if (timedOut) return remember(clientId, timeoutFailure());
        return remember(
          clientId,
          failure('fetch_failed', 'the client metadata document could not be read', describeError(error)),
        );
      }
      if (!body.ok) return remember(clientId, tooLarge(`stopped reading after ${body.bytesSeen} bytes`));

      let parsed: unknown;
      try {
        parsed = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body.bytes));
      } catch (error) {
        return remember(
          clientId,
          failure(
            'invalid_json',
            'the client metadata document is not valid UTF-8 JSON',
            describeError(error),
          ),
        );
      }
      const check = checkMetadataDocument(parsed, clientId);
      if (!check.ok) return remember(clientId, failure(check.error, check.description));
      const etag = response.headers.get('etag') ?? undefined;
      const freshUntil = clock.now() + lifetimeMs(response);
      keep(clientId, { document: check.document, etag, freshUntil });
      return { resolution: { ok: true, document: check.document, cached: false }, cached: false };
    } finally {
      clearTimeout(timer);
      // Releases the connection on every early return; a no-op once a body was read to its end.
      controller.abort();
    }
  }

  async function spendFetchBudget(
    clientId: string,
    host: string,
    on: FetchFor,
  ): Promise<Attempt | undefined> {
    if (fetchBudget === undefined) return undefined;
    const outcome = await fetchBudget(clientId, host, on);
    if (outcome.ok) return undefined;
    return {
      resolution: {
        ...failure(
          'fetch_rate_limited',
          on.known
            ? `too many fetches of this client metadata document; retry in ${outcome.retryAfterSeconds} s`
            : `too many client metadata document fetches from ${host} for this address; retry in ${outcome.retryAfterSeconds} s`,
        ),
        retryAfterSeconds: outcome.retryAfterSeconds,
      },
      cached: false,
    };
  }

  async function attempt(
    clientId: string,
    allowedDomains: readonly string[],
    requesterIp: string | undefined,
  ): Promise<Attempt> {
    const url = checkClientIdUrl(clientId);
    if (!url.ok) return { resolution: failure('not_https', url.description), cached: false };
    // The allowlist gates the network: nothing below this line runs for a host the tenant did not allow.
    if (!isHostAllowed(url.url.hostname, allowedDomains)) {
      return {
        resolution: failure(
          'domain_not_allowed',
          `metadata-document clients from ${url.url.hostname} are not allowed by this server`,
        ),
        cached: false,
      };
    }
    const now = clock.now();
    const entry = documents.get(clientId);
    if (entry !== undefined && entry.freshUntil > now) {
      return { resolution: { ok: true, document: entry.document, cached: true }, cached: true };
    }
    const failed = failures.get(clientId);
    if (failed !== undefined && failed.freshUntil > now) return { resolution: failed.failure, cached: true };
    const pending = inFlight.get(clientId);
    if (pending) return pending;
    // Only a request that reaches the network spends a budget (joined resolutions share its outcome): a
    // revalidation the document's own, a first fetch the requester's. A refusal is not remembered as a
    // failure: once the window turns, the next resolution fetches.
    const started = (async (): Promise<Attempt> => {
      const refused = await spendFetchBudget(clientId, url.url.hostname, {
        requesterIp,
        known: entry !== undefined,
      });
      return refused ?? fetchAndValidate(clientId, entry);
    })().finally(() => inFlight.delete(clientId));
    inFlight.set(clientId, started);
    return started;
  }

  const jwks = createJwksResolver({
    timeoutMs,
    ...options.jwks,
    fetch: fetchDocument,
    clock,
    logger,
    ...(options.fetchRateLimit === undefined ? {} : { fetchRateLimit: options.fetchRateLimit }),
  });

  return {
    jwks,
    async resolve(clientId, context) {
      const { resolution, cached } = await attempt(clientId, context.allowedDomains, context.requesterIp);
      if (resolution.ok) {
        metrics.cimdFetch({ status: 'success', cached });
      } else {
        metrics.cimdFetch({ status: 'error', cached, cimd_error: resolution.error });
        logger.warn(
          {
            event: 'cimd_fetch_failed',
            reason: resolution.error,
            clientId,
            cimd_error: resolution.error,
            cached,
            ...(resolution.detail === undefined ? {} : { detail: resolution.detail }),
          },
          `client metadata document refused: ${resolution.description}`,
        );
      }
      return resolution;
    },
  };
}
