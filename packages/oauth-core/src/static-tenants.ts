import { optionCheck } from './errors.js';
import type { TenantConfig, TenantLookup } from './options.js';
import { checkTenantConfig } from './tenant.js';

/**
 * A {@link TenantLookup} over a fixed set of tenants, checked now: a tenant whose signing key cannot be
 * imported (a short HMAC secret, a JWK of the wrong type or without its private members, a malformed PEM),
 * a malformed slug, unknown `tokenEndpointAuthMethods` or a `loginUrl` that is no URL throws
 * {@link OAuthCoreError} `ERR_INVALID_OPTIONS` here, at start-up, instead of answering 500 to the
 * tenant's first request. The message names the tenant and the key: `tenant demo: signing key k1: …`.
 *
 * The record is read once: tenants added to it later are not seen, and only its own entries are tenants
 * (a slug such as `constructor` is unknown). A lookup you implement yourself (tenants in a database) is
 * checked on first use instead, with the same messages.
 *
 * @example
 * ```ts
 * import { createAuthorizationServer, createMemoryStorage, createStaticTenants, generateSigningKey } from '@keyhold/oauth-core';
 *
 * const tenants = createStaticTenants({
 *   demo: { signingKeys: [await generateSigningKey('ES256', 'demo-1')], singleUserId: 'owner' },
 * });
 * const server = createAuthorizationServer({ baseUrl: 'http://localhost:8787', tenants, storage: createMemoryStorage() });
 * ```
 */
export function createStaticTenants(configs: Readonly<Record<string, TenantConfig>>): TenantLookup {
  if (typeof configs !== 'object' || configs === null || Array.isArray(configs)) {
    throw optionCheck.invalid('createStaticTenants takes a record of tenant configs by slug');
  }
  const bySlug = new Map<string, TenantConfig>();
  for (const [slug, config] of Object.entries(configs)) {
    checkTenantConfig(slug, config);
    bySlug.set(slug, config);
  }
  return { get: (slug) => bySlug.get(slug) };
}
