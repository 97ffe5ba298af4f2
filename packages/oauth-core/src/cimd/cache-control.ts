import { optionCheck } from '../errors.js';

/**
 * How long a response may be reused according to its `Cache-Control` header, before clamping:
 * `no-store`/`no-cache` → 0, `max-age=N` → N, nothing usable → `undefined` (the caller's default applies).
 *
 * @example
 * ```ts
 * cacheLifetimeSeconds('public, max-age=3600'); // 3600
 * ```
 */
export function cacheLifetimeSeconds(header: string | null): number | undefined {
  if (header === null) return undefined;
  let maxAge: number | undefined;
  for (const part of header.split(',')) {
    const [rawName, rawValue] = part.split('=', 2);
    const name = rawName?.trim().toLowerCase();
    if (name === 'no-store' || name === 'no-cache') return 0;
    if (name === 'max-age' && rawValue !== undefined) {
      const value = rawValue.trim().replace(/^"|"$/g, '');
      if (/^\d+$/.test(value)) maxAge = Number(value);
    }
  }
  return maxAge;
}

/** The caching and fetching options the CIMD resolver and the key-set resolver share (part of `CimdOptions`). */
export interface FetchCacheOptions {
  /**
   * Documents kept, least recently used evicted first; failures are kept apart, as many again, so requests
   * for documents that do not exist cannot evict the documents of real clients. Default 1000.
   */
  readonly maxEntries?: number;
  /** Lifetime when the response has no usable `Cache-Control`. Default 300 (5 minutes). */
  readonly defaultMaxAgeSeconds?: number;
  /** Lower clamp of `max-age` (also used for `no-cache`/`no-store`). Default 60. */
  readonly minMaxAgeSeconds?: number;
  /** Upper clamp of `max-age`. Default 86 400 (one day). */
  readonly maxMaxAgeSeconds?: number;
  /** How long a transient failure (timeout, network error, 5xx, 429) is remembered, sparing the document host. Default 10. */
  readonly failureTtlSeconds?: number;
  /**
   * How long a definitive failure is remembered: any other non-200 answer (404 above all), a body that is not a
   * valid document, one too large, a forbidden address. Within it the URL is not fetched again, so asking
   * for a document that does not exist costs one fetch per this many seconds, not one per request. Default 300.
   */
  readonly negativeTtlSeconds?: number;
  /** Whole-request limit, body included. Default 10 000. */
  readonly timeoutMs?: number;
  /** Body size limit, enforced while streaming. Default 5 120 (5 KB). */
  readonly maxBodyBytes?: number;
}

/** {@link FetchCacheOptions} checked once, with defaults applied and the lifetime clamp ready to use. */
export interface FetchCachePolicy {
  readonly maxEntries: number;
  /** How long a transient failure (timeout, network, 5xx, 429) is remembered. */
  readonly failureTtlMs: number;
  /** How long a definitive failure (another 4xx, a body that is not a valid document or key set) is remembered. */
  readonly negativeTtlMs: number;
  readonly timeoutMs: number;
  readonly maxBodyBytes: number;
  /** How long to keep a response with this `Cache-Control` header, clamped to [min, max] max-age. */
  lifetimeMs(cacheControl: string | null): number;
}

/**
 * Checks the shared caching options of a resolver at its creation (throws `OAuthCoreError`
 * `ERR_INVALID_OPTIONS`). Only the body limit's default differs between documents and key sets.
 *
 * @example
 * ```ts
 * const policy = fetchCachePolicy({ maxMaxAgeSeconds: 3600 }, { maxBodyBytes: 5120 });
 * policy.lifetimeMs('max-age=86400'); // 3_600_000
 * ```
 */
export function fetchCachePolicy(
  options: FetchCacheOptions,
  defaults: { readonly maxBodyBytes: number },
): FetchCachePolicy {
  const seconds = (name: keyof FetchCacheOptions, fallback: number): number =>
    optionCheck.positiveInteger(name, options[name], fallback) * 1000;
  const minMaxAgeMs = seconds('minMaxAgeSeconds', 60);
  const maxMaxAgeMs = seconds('maxMaxAgeSeconds', 86_400);
  const defaultMaxAgeMs = seconds('defaultMaxAgeSeconds', 300);
  if (minMaxAgeMs > maxMaxAgeMs)
    throw optionCheck.invalid('minMaxAgeSeconds must not exceed maxMaxAgeSeconds');
  return {
    maxEntries: optionCheck.positiveInteger('maxEntries', options.maxEntries, 1000),
    failureTtlMs: seconds('failureTtlSeconds', 10),
    negativeTtlMs: seconds('negativeTtlSeconds', 300),
    timeoutMs: optionCheck.positiveInteger('timeoutMs', options.timeoutMs, 10_000),
    maxBodyBytes: optionCheck.positiveInteger('maxBodyBytes', options.maxBodyBytes, defaults.maxBodyBytes),
    lifetimeMs(cacheControl) {
      const header = cacheLifetimeSeconds(cacheControl);
      const wanted = header === undefined ? defaultMaxAgeMs : header * 1000;
      return Math.min(maxMaxAgeMs, Math.max(minMaxAgeMs, wanted));
    },
  };
}
