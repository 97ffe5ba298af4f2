import { optionCheck } from '../errors.js';
import type { CimdOptions } from './options.js';

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

/** The caching and fetching options the CIMD resolver and the key-set resolver share, documented on `CimdOptions`. */
export type FetchCacheOptions = Pick<
  CimdOptions,
  | 'maxEntries'
  | 'defaultMaxAgeSeconds'
  | 'minMaxAgeSeconds'
  | 'maxMaxAgeSeconds'
  | 'failureTtlSeconds'
  | 'negativeTtlSeconds'
  | 'timeoutMs'
  | 'maxBodyBytes'
>;

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
