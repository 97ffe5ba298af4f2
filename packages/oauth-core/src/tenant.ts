import { tenantIssuer, wellKnownUrl } from './discovery-paths.js';
import { OAuthCoreError, OAuthError, optionCheck } from './errors.js';
import type { ResolvedEnterpriseIssuer } from './jwt-bearer/enterprise-issuers.js';
import { resolveEnterpriseIssuers } from './jwt-bearer/enterprise-issuers.js';
import type { ResolvedWorkloadPolicy } from './jwt-bearer/workload-policies.js';
import { resolveWorkloadPolicies } from './jwt-bearer/workload-policies.js';
import type { KeyCache, TenantKeySet } from './keys.js';
import type { ServerContext, TenantConfig } from './options.js';
import { checkSigningKeySet } from './signing-key-check.js';
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
  /** The enterprise IdPs whose ID-JAGs the jwt-bearer grant redeems (checked, defaults applied); may be empty. */
  readonly enterpriseIssuers: readonly ResolvedEnterpriseIssuer[];
  /** The workload trust policies the jwt-bearer grant applies to workload JWTs (checked); may be empty. */
  readonly workloads: readonly ResolvedWorkloadPolicy[];
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
    throw optionCheck.invalid(`tokenEndpointAuthMethods must list one or more of ${AUTH_METHODS.join(', ')}`);
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

// A built tenant is kept per slug and reused while the lookup returns the same config object (and the same
// `signingKeys` array): a request then pays one lookup and no rebuild. Bounded, oldest first out, so unbounded
// slugs cannot grow it; keyed by the server's context so two servers never share a tenant.
const MAX_CACHED_TENANTS = 1024;
interface CachedTenant {
  readonly tenant: Tenant;
  readonly signingKeys: TenantConfig['signingKeys'];
  /** The resource URLs the host had placed (`protectedResource(…, { url })`) when the tenant was built. */
  readonly placed: readonly string[] | undefined;
}
const tenantCaches = new WeakMap<ServerContext, Map<string, CachedTenant>>();

function cacheOf(context: ServerContext): Map<string, CachedTenant> {
  let cache = tenantCaches.get(context);
  if (!cache) {
    cache = new Map();
    tenantCaches.set(context, cache);
  }
  return cache;
}

function resolveLoginUrl(loginUrl: string | undefined, issuer: string): string {
  if (loginUrl === undefined) return `${issuer}/login`;
  try {
    // A path such as `/login` is taken relative to the issuer's origin.
    return new URL(loginUrl, `${issuer}/`).href;
  } catch {
    throw optionCheck.invalid('loginUrl is not a URL');
  }
}

// The creation-time check and the lazy check of a request name the tenant the same way, so both give one message.
function named(slug: string, error: unknown): unknown {
  return error instanceof OAuthCoreError && error.code === 'ERR_INVALID_OPTIONS'
    ? new OAuthCoreError('ERR_INVALID_OPTIONS', `tenant ${slug}: ${error.message}`, { cause: error })
    : error;
}

/**
 * Throws `ERR_INVALID_OPTIONS` for a tenant the lazy path would refuse on its first request: a malformed slug,
 * a signing key that cannot be imported, unknown `tokenEndpointAuthMethods`, a `loginUrl` that is no URL.
 */
export function checkTenantConfig(slug: string, config: TenantConfig): void {
  if (typeof slug !== 'string' || !SLUG.test(slug)) {
    throw optionCheck.invalid(
      `${JSON.stringify(slug)} is not a tenant slug (letters, digits, "_" and "-", at most 64, not starting with "_" or "-")`,
    );
  }
  try {
    if (typeof config !== 'object' || config === null)
      throw optionCheck.invalid('the config must be an object');
    readAuthMethods(config.tokenEndpointAuthMethods);
    resolveEnterpriseIssuers(config.enterpriseIssuers);
    resolveWorkloadPolicies(config.workloads);
    // Any base resolves a URL the same way, so the server's baseUrl is not needed to find a bad one.
    resolveLoginUrl(config.loginUrl, `https://issuer.invalid/tenant/${slug}`);
    checkSigningKeySet(config.signingKeys);
  } catch (error) {
    throw named(slug, error);
  }
}

// The tenant's `resources` first (the first is the default audience), then those the host placed at URLs of
// its choosing; with neither, the resource under the issuer. A host resource replaces that default rather
// than joining it, so a single-tenant app's `/mcp` is the audience a token gets when no `resource` is asked.
function tenantResources(
  configured: readonly string[] | undefined,
  placed: readonly string[] | undefined,
  underIssuer: string,
): readonly string[] {
  const own = configured !== undefined && configured.length > 0 ? configured : [];
  if (placed === undefined || placed.length === 0) return own.length > 0 ? own : [underIssuer];
  return [...new Set([...own, ...placed])];
}

/**
 * Looks a tenant up; `undefined` for a malformed or unknown slug. Throws for a broken tenant config. The
 * lookup runs on every call (a changed tenant takes effect at once); the tenant built from an unchanged config
 * object (and unchanged host-placed resource URLs) is reused.
 */
export async function resolveTenant(
  context: ServerContext,
  keyCache: KeyCache,
  slug: string,
): Promise<Tenant | undefined> {
  if (!SLUG.test(slug)) return undefined;
  const config = await context.tenants.get(slug);
  if (!config) return undefined;
  const cache = cacheOf(context);
  const cached = cache.get(slug);
  const placed = context.resourceUrls?.get(slug);
  if (
    cached !== undefined &&
    cached.tenant.config === config &&
    cached.signingKeys === config.signingKeys &&
    cached.placed === placed
  ) {
    return cached.tenant;
  }
  const tenant = await buildTenant(context, keyCache, slug, config);
  cache.delete(slug);
  if (cache.size >= MAX_CACHED_TENANTS) cache.delete(cache.keys().next().value as string);
  cache.set(slug, { tenant, signingKeys: config.signingKeys, placed });
  return tenant;
}

async function buildTenant(
  context: ServerContext,
  keyCache: KeyCache,
  slug: string,
  config: TenantConfig,
): Promise<Tenant> {
  const issuer = tenantIssuer(context.baseUrl, slug);
  const resource = `${issuer}${context.resourcePath}`;
  let authMethods: ReadonlySet<TokenEndpointAuthMethod> | undefined;
  let loginUrl: string;
  let keys: TenantKeySet;
  let enterpriseIssuers: readonly ResolvedEnterpriseIssuer[];
  let workloads: readonly ResolvedWorkloadPolicy[];
  try {
    authMethods = readAuthMethods(config.tokenEndpointAuthMethods);
    enterpriseIssuers = resolveEnterpriseIssuers(config.enterpriseIssuers);
    workloads = resolveWorkloadPolicies(config.workloads);
    loginUrl = resolveLoginUrl(config.loginUrl, issuer);
    keys = await keyCache.get(config.signingKeys);
  } catch (error) {
    throw named(slug, error);
  }
  return {
    slug,
    config,
    issuer,
    resource,
    resourceMetadataUrl: wellKnownUrl(resource, 'oauth-protected-resource'),
    resources: tenantResources(config.resources, context.resourceUrls?.get(slug), resource),
    loginUrl,
    keys,
    firstPartyClientIds: new Set(config.firstPartyClientIds ?? []),
    ...(config.scopesSupported ? { scopesSupported: config.scopesSupported } : {}),
    resourceScopes: config.resourceScopes ?? DEFAULT_RESOURCE_SCOPES,
    ...(authMethods ? { authMethods } : {}),
    enterpriseIssuers,
    workloads,
  };
}
