import type { Clock, Logger } from '@keyhold/core';
import { optionCheck } from '../errors.js';
import type { AuthMetrics } from '../metrics-types.js';
import type { CimdFetch } from './fetch-contract.js';
import type { JwksResolver } from './jwks-resolver.js';
import { createJwksResolver } from './jwks-resolver.js';
import { lazySafeFetch } from './lazy-safe-fetch.js';
import type { CimdOptions } from './options.js';
import { createCimdResolver } from './resolver.js';
import type { CimdResolver } from './types.js';

/** What the server fetches client documents and key sets with, built once from its `cimd` option. */
export interface CimdServices {
  /** Present when the `cimd` option is: without it `https` client ids are `invalid_client`. */
  readonly resolver?: CimdResolver;
  /** The `jwks_uri` key sets of `private_key_jwt` clients: through the `cimd` option's network and budgets. */
  readonly jwks: JwksResolver;
}

/**
 * Checks the server's `cimd` option and builds the resolvers behind it. Without the option only key sets are
 * fetched, through the SSRF-safe fetch with the default limits (as a server without CIMD always did).
 */
export function configureCimd(
  options: CimdOptions | undefined,
  services: { readonly clock: Clock; readonly logger: Logger; readonly metrics: AuthMetrics },
): CimdServices {
  const { clock, logger } = services;
  if (options === undefined) return { jwks: createJwksResolver({ clock, logger }) };
  if (typeof options !== 'object' || options === null) throw optionCheck.invalid('cimd must be an object');
  const { fetch: hostFetch, allowedAddresses, ca, ...tuning } = options;
  if (hostFetch !== undefined && typeof hostFetch !== 'function') {
    throw optionCheck.invalid('cimd.fetch must be a function');
  }
  if (
    allowedAddresses !== undefined &&
    (!Array.isArray(allowedAddresses) || allowedAddresses.some((address) => typeof address !== 'string'))
  ) {
    throw optionCheck.invalid('cimd.allowedAddresses must be an array of IP addresses');
  }
  if (ca !== undefined && typeof ca !== 'string') throw optionCheck.invalid('cimd.ca must be a PEM string');
  const safeFetch = lazySafeFetch({
    ...(allowedAddresses === undefined ? {} : { allowedAddresses }),
    ...(ca === undefined ? {} : { ca }),
  });
  const fetch: CimdFetch =
    hostFetch === undefined ? safeFetch : (url, init) => hostFetch(url, init, safeFetch);
  const resolver = createCimdResolver({ ...tuning, fetch, clock, logger, metrics: services.metrics });
  return { resolver, jwks: resolver.jwks ?? createJwksResolver({ fetch, clock, logger }) };
}
