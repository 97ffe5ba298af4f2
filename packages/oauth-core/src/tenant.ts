import { tenantIssuer, wellKnownUrl } from './discovery-paths.js';
import { OAuthError, optionCheck } from './errors.js';
import type { KeyCache, TenantKeySet } from './keys.js';
import type { ServerContext, TenantConfig } from './options.js';
import type { TokenEndpointAuthMethod } from './storage.js';

/** A tenant resolved for one request: its config, URLs and imported keys. */
export interface Tenant {
  readonly slug: string;
  readonly config: TenantConfig;
  readonly issuer: string;
  /** The protected resource (`{issuer}/mcp` by default): the default token audience. */
  readonly resource: string;
  readonly resourceMetadataUrl: string;
  /** The resources a token may be issued for (RFC 8707); the first is the default audience. */
  readonly resources: readonly string[];
  readonly loginUrl: string;
  readonly keys: TenantKeySet;
  readonly firstPartyClientIds: ReadonlySet<string>;
  readonly scopesSupported?: readonly string[];
  /** The scopes a token needs for the tenant's own protected resource (default `['mcp:tools']`). */
  readonly resourceScopes: readonly string[];
  /** The client authentication methods the tenant accepts; absent: every method the server offers. */
  readonly authMethods?: ReadonlySet<TokenEndpointAuthMethod>;
}

const AUTH_METHODS: readonly TokenEndpointAuthMethod[] = [
  'none',
  'client_secret_basic',
  'client_secret_post',
  'private_key_jwt',
];

function readAuthMethods(
  methods: readonly TokenEndpointAuthMethod[] | undefined,
): ReadonlySet<TokenEndpointAuthMethod> | undefined {
  if (methods === undefined) return undefined;
  if (!Array.isArray(methods) || methods.length === 0 || !methods.every((m) => AUTH_METHODS.includes(m))) {
    throw optionCheck.invalid(
      `the tenant tokenEndpointAuthMethods must list one or more of ${AUTH_METHODS.join(', ')}`,
    );
  }
  return new Set(methods);
}

/**
 * Whether the tenant accepts a client authentication method (its `tokenEndpointAuthMethods`, default all).
 * Throws `invalid_client` naming the method when it does not, for `/authorize` and the token endpoints.
 */
export function assertTenantAcceptsAuthMethod(tenant: Tenant, method: TokenEndpointAuthMethod): void {
  if (tenant.authMethods !== undefined && !tenant.authMethods.has(method)) {
    throw new OAuthError(
      'invalid_client',
      `this tenant does not accept ${method} client authentication (it accepts ${[...tenant.authMethods].join(', ')})`,
    );
  }
}

/**
 * The scope MCP tool access needs unless a tenant configures `resourceScopes`.
 *
 * @example
 * ```ts
 * const demo: TenantConfig = { signingKeys, resourceScopes: [...DEFAULT_RESOURCE_SCOPES, 'files:read'] };
 * ```
 */
export const DEFAULT_RESOURCE_SCOPES: readonly string[] = Object.freeze(['mcp:tools']);

const SLUG = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** Whether a string is a well-formed tenant slug (letters, digits, `_` and `-`, at most 64). */
export function isTenantSlug(slug: string): boolean {
  return SLUG.test(slug);
}

interface TenantUrls {
  readonly issuer: string;
  readonly resource: string;
  readonly resourceMetadataUrl: string;
}

// The URLs depend only on the slug and the server's options, so they are computed once per known tenant
// (the cache is cleared when it grows past a bound, so unbounded slugs cannot grow it).
const MAX_CACHED_TENANTS = 1024;
const urlCaches = new WeakMap<ServerContext, Map<string, TenantUrls>>();

function tenantUrls(context: ServerContext, slug: string): TenantUrls {
  let cache = urlCaches.get(context);
  if (!cache) {
    cache = new Map();
    urlCaches.set(context, cache);
  }
  let urls = cache.get(slug);
  if (!urls) {
    const issuer = tenantIssuer(context.baseUrl, slug);
    const resource = `${issuer}${context.resourcePath}`;
    urls = { issuer, resource, resourceMetadataUrl: wellKnownUrl(resource, 'oauth-protected-resource') };
    if (cache.size >= MAX_CACHED_TENANTS) cache.clear();
    cache.set(slug, urls);
  }
  return urls;
}

function resolveLoginUrl(loginUrl: string | undefined, issuer: string): string {
  if (loginUrl === undefined) return `${issuer}/login`;
  try {
    // A path such as `/login` is taken relative to the issuer's origin.
    return new URL(loginUrl, `${issuer}/`).href;
  } catch {
    throw optionCheck.invalid('the tenant loginUrl is not a URL');
  }
}

/** Looks a tenant up; `undefined` for a malformed or unknown slug. Throws for a broken tenant config. */
export async function resolveTenant(
  context: ServerContext,
  keyCache: KeyCache,
  slug: string,
): Promise<Tenant | undefined> {
  if (!SLUG.test(slug)) return undefined;
  const config = await context.tenants.get(slug);
  if (!config) return undefined;
  const { issuer, resource, resourceMetadataUrl } = tenantUrls(context, slug);
  const authMethods = readAuthMethods(config.tokenEndpointAuthMethods);
  return {
    slug,
    config,
    issuer,
    resource,
    resourceMetadataUrl,
    resources: config.resources && config.resources.length > 0 ? config.resources : [resource],
    loginUrl: resolveLoginUrl(config.loginUrl, issuer),
    keys: await keyCache.get(config.signingKeys),
    firstPartyClientIds: new Set(config.firstPartyClientIds ?? []),
    ...(config.scopesSupported ? { scopesSupported: config.scopesSupported } : {}),
    resourceScopes: config.resourceScopes ?? DEFAULT_RESOURCE_SCOPES,
    ...(authMethods ? { authMethods } : {}),
  };
}
