import type { Clock, Logger, OnceStore, RequestTracing } from '@keyhold/core';
import { silentLogger, systemClock } from '@keyhold/core';
import { originOf } from '@keyhold/internal';
import { configureCimd } from './cimd/configured.js';
import type { JwksResolver } from './cimd/jwks-resolver.js';
import type { CimdOptions } from './cimd/options.js';
import type { CimdResolver } from './cimd/types.js';
import {
  type ConnectedAppsStrings,
  type ConnectedAppsView,
  DEFAULT_CONNECTED_APPS_STRINGS,
  renderConnectedAppsPage,
} from './connected-apps-screen.js';
import {
  type ConsentStrings,
  type ConsentView,
  DEFAULT_CONSENT_STRINGS,
  renderConsentPage,
} from './consent-screen.js';
import { type DpopSettings, resolveDpop } from './dpop/settings.js';
import { optionCheck } from './errors.js';
import { createEventSink, type EventSink } from './events/emitter.js';
import type { EnterpriseIssuer } from './jwt-bearer/enterprise-issuers.js';
import type { WorkloadTrustPolicy } from './jwt-bearer/workload-policies.js';
import type { SigningKeyConfig } from './keys.js';
import { defaultMetrics } from './metrics/when-present.js';
import { type AuthMetrics, noopMetrics } from './metrics-types.js';
import type { AuthenticatedClientCheck, RateLimitsOptions } from './rate-limits.js';
import type { InitialAccessTokenConfig, RegistrationPolicy } from './registration-policy.js';
import { defaultRegistrationPolicy } from './registration-policy.js';
import type { AuthEvent, OAuthStorage, TokenEndpointAuthMethod } from './storage.js';
import type { UserClaimsHook } from './user-claims.js';

/**
 * One tenant's configuration, as the host's {@link TenantLookup} returns it.
 */
export interface TenantConfig {
  /** Several keys may be listed; verification accepts each, signing uses the active one. */
  readonly signingKeys: readonly SigningKeyConfig[];
  /** The service's name as people know it, shown on the consent page ("Acme Docs"). Default: the slug. */
  readonly displayName?: string;
  /**
   * Plain words for the tenant's scopes on the consent page (`{ 'docs:read': 'read your documents' }`), the
   * raw name shown in small print beside them. Built-in words cover `openid`, `profile`, `email`,
   * `offline_access` and `mcp:tools` (replaceable through `ConsentStrings`); other scopes show their name.
   */
  readonly scopeDescriptions?: Readonly<Record<string, string>>;
  /** Where a browser without a session is sent (with `return_to`). Default `{issuer}/login`. */
  readonly loginUrl?: string;
  /** The tenant owner; the subject in single-user mode. */
  readonly singleUserId?: string;
  /** Clients that skip the consent screen. */
  readonly firstPartyClientIds?: readonly string[];
  /**
   * The resource servers: confidential clients that may introspect every token of the tenant (RFC 7662 §4,
   * the server decides who may). Any other client learns only about the tokens issued to it; for anything
   * else `/introspect` answers `{ "active": false }`. Default: none.
   */
  readonly introspectionClientIds?: readonly string[];
  /** Hosts whose Client ID Metadata Documents may be fetched (exact host, or `*.example.com`). */
  readonly allowedCimdDomains?: readonly string[];
  /**
   * The scopes the tenant offers, advertised in both metadata documents. When set, a request for any
   * other scope is refused with `invalid_scope`; when absent, any well-formed scope is accepted and
   * `["openid"]` is advertised.
   */
  readonly scopesSupported?: readonly string[];
  /**
   * RFC 8707 resource indicators a client may ask a token for. Default: the tenant's protected resource
   * (`{issuer}/mcp`) only; the first entry is the default audience.
   */
  readonly resources?: readonly string[];
  /**
   * RFC 7591 §3 initial access tokens `POST /register` accepts as `Authorization: Bearer …`, by SHA-256.
   * With the default registration policy a valid one lets a registration use machine grants
   * (`client_credentials`, token exchange); a malformed, unknown or expired one answers 401
   * `invalid_token`.
   */
  readonly initialAccessTokens?: readonly InitialAccessTokenConfig[];
  /**
   * The scopes every access token must carry to use the tenant's own protected resource (`{issuer}/mcp`):
   * `verifyAccessToken` requires them by default and names them in its challenges, and the protected
   * resource metadata advertises them. Default `['mcp:tools']`; `[]` requires none. When `scopesSupported`
   * is set it must list them, or no token could ever be accepted (a warning is logged).
   */
  readonly resourceScopes?: readonly string[];
  /**
   * The client authentication methods the tenant accepts (RFC 8414 `token_endpoint_auth_methods_supported`).
   * When set, only these are advertised (intersected with what the server offers: `private_key_jwt` needs a
   * replay store), registered (`POST /register` and `clients.provision` refuse others with
   * `invalid_client_metadata`), negotiated with metadata documents, and accepted at `/authorize`, `/token`,
   * `/revoke` and `/introspect` (a client whose method is not listed is `invalid_client`, even one registered
   * before the list changed). Leave out `none` for a tenant of confidential clients only. Default: every method
   * the server offers. An empty or unknown entry throws `ERR_INVALID_OPTIONS` on use.
   */
  readonly tokenEndpointAuthMethods?: readonly TokenEndpointAuthMethod[];
  /**
   * Enterprise identity providers whose ID-JAGs (`typ` `oauth-id-jag+jwt`) the jwt-bearer grant redeems for
   * the clients each one lists (MCP enterprise-managed authorization). With at least one, and a server with
   * `storage.onceStore` (each assertion's `jti` is spent once), the grant is offered and advertised. Default:
   * none. A malformed entry throws `ERR_INVALID_OPTIONS`.
   */
  readonly enterpriseIssuers?: readonly EnterpriseIssuer[];
  /**
   * Workload identity federation (RFC 7523 §2.1, MCP SEP-1933): trust policies under which a workload
   * redeems its own JWT (a Kubernetes service-account token, a SPIFFE JWT-SVID, a CI OIDC token; JOSE `typ`
   * absent, `JWT` or `JOSE`) with the jwt-bearer grant, no client registration needed. Each entry:
   * `issuer` (exact `iss`) or `spiffeTrustDomain` (JWT-SVIDs: keyed on the trust domain of `sub`,
   * `spiffe://<domain>/…`); `jwks` or `jwksUri` (https, fetched through the bounded key-set fetch);
   * `algorithms` (default RS256, ES256); `audiences` (default the tenant issuer, with or without a trailing
   * slash, or its token endpoint; one value); `subject` (exact, a glob with `*`, or a map of claim paths to
   * exact values: `{ 'kubernetes.io.namespace': 'agents' }`); `requireJti`, `requireIat` (default true);
   * `maxLifetimeSeconds` (default 3600); `clockSkewSeconds` (default 60); `resources` (default all);
   * `scopes` (the ceiling); `principal` (the token's subject becomes `workload:<principal>` instead of
   * `workload:<sub>`); `clientId` (the token's `client_id` when no client authenticates, default
   * `workload:<issuer>`). With at least one, and `storage.onceStore`, the grant is offered and advertised.
   * Default: none. A malformed entry throws `ERR_INVALID_OPTIONS` naming it.
   *
   * @example
   * ```ts
   * const tenant: TenantConfig = {
   *   signingKeys,
   *   workloads: [{ issuer: 'https://token.actions.example', jwksUri: 'https://token.actions.example/jwks',
   *     subject: 'repo:acme/*', scopes: ['mcp:tools'] }],
   * };
   * ```
   */
  readonly workloads?: readonly WorkloadTrustPolicy[];
}

/**
 * How the server finds a tenant by its slug; called once per request. Return the same object for an
 * unchanged tenant: the server reuses what it built from it (imported keys included), so a changed tenant must
 * come back as a new object (edits to the returned object in place are not seen); `undefined` answers 404. For a fixed set of
 * tenants use {@link createStaticTenants}, which checks every tenant (its signing keys included) at creation;
 * a lookup you implement is checked on first use: a broken tenant throws `ERR_INVALID_OPTIONS` from the
 * handler of its first request, which answers it with 500.
 *
 * @example
 * ```ts
 * const tenants: TenantLookup = { get: (slug) => db.tenants.find(slug) };
 * ```
 */
export interface TenantLookup {
  get(slug: string): TenantConfig | undefined | Promise<TenantConfig | undefined>;
}

/**
 * How `private_key_jwt` client assertions (RFC 7523 §2.2) are checked. The method is offered when the
 * storage has an `onceStore`. Key sets published at a `jwks_uri` are fetched as the `cimd` option says.
 *
 * @example
 * ```ts
 * const clientAssertions: ClientAssertionOptions = { maxLifetimeSeconds: 120, clockSkewSeconds: 30 };
 * ```
 */
export interface ClientAssertionOptions {
  /** The longest an assertion may live: `exp` at most this far past `iat` and past now. Default 300 (5 minutes). */
  readonly maxLifetimeSeconds?: number;
  /** Tolerance for the client's clock on `exp`, `nbf` and `iat`. Default 60. */
  readonly clockSkewSeconds?: number;
}

/** The resolved {@link ClientAssertionOptions} the handlers share (present when `private_key_jwt` is on). */
export interface ClientAssertionSettings {
  readonly onceStore: OnceStore;
  readonly jwks: JwksResolver;
  readonly maxLifetimeSeconds: number;
  readonly clockSkewSeconds: number;
}

/**
 * Options of {@link createAuthorizationServer}. Lifetimes are in seconds, each default documented with its option.
 */
export interface AuthorizationServerOptions {
  /** The public origin (and optional path prefix) the host serves; issuers are `{baseUrl}/tenant/<slug>`. */
  readonly baseUrl: string;
  /**
   * Finds a tenant by its slug: {@link createStaticTenants} for a fixed set (checked at creation), or a
   * lookup of your own (each tenant checked on first use).
   */
  readonly tenants: TenantLookup;
  readonly storage: OAuthStorage;
  /** Default: the system clock. */
  readonly clock?: Clock;
  /** Default: silent. */
  readonly logger?: Logger;
  /**
   * Default: the `mcp_auth.events` and `mcp_auth.cimd.fetches` counters through `@opentelemetry/api` when
   * it is installed (on the global meter provider), nothing when it is not. `false` turns them off.
   */
  readonly metrics?: AuthMetrics | false;
  /**
   * The decision timeline. Every authorization decision (authorize, consent, token, refresh, introspection,
   * revocation, registration, userinfo, a refused resource request) emits one {@link AuthEvent} with a reason
   * from `AUTH_EVENT_REASONS`: to `onEvent` (called without being awaited; a throw or rejection is logged
   * and never changes the response) and, when the storage has `events`, to the timeline, which keeps at most
   * `maxEventsPerTenant` events per tenant (default 10 000, oldest dropped) and none older than
   * `retentionSeconds` (default 30 days).
   *
   * @example
   * ```ts
   * createAuthorizationServer({ ...options, events: { onEvent: (event) => audit.write(event) } });
   * ```
   */
  readonly events?: {
    readonly onEvent?: (event: AuthEvent) => void | PromiseLike<void>;
    readonly maxEventsPerTenant?: number;
    readonly retentionSeconds?: number;
  };
  /**
   * Client ID Metadata Documents: with this option (`{}` for the defaults) an `https` client id is resolved
   * to its document, for tenants whose `allowedCimdDomains` name its host; without it such ids are
   * `invalid_client` and CIMD is not advertised. It also says how the `jwks_uri` key sets of
   * `private_key_jwt` clients are fetched (network, limits, budgets), CIMD clients or not.
   */
  readonly cimd?: CimdOptions;
  /**
   * Browser origins (besides the server's own, from `baseUrl`) allowed to call the registration endpoint:
   * a registration request whose `Origin` header is present and neither the server's origin nor one of
   * these is refused with 403. Requests without `Origin` (native and server-side clients) are unaffected.
   * List the origins of browser-based MCP clients you trust (`https://inspector.example`), or `'any'`.
   * Default: none.
   */
  readonly allowedOrigins?: readonly string[] | 'any';
  /** Single-user bootstrap (the host maps `SVC_SINGLE_USER=1` to it). Default false. */
  readonly singleUserMode?: boolean;
  /** The protected resource under the issuer: `{issuer}{resourcePath}`. Default `/mcp`. */
  readonly resourcePath?: string;
  /** Default 60. */
  readonly authorizationCodeTtlSeconds?: number;
  /** Default 900 (15 minutes). */
  readonly accessTokenTtlSeconds?: number;
  /** Default 900 (15 minutes). */
  readonly idTokenTtlSeconds?: number;
  /** Default 2 592 000 (30 days). */
  readonly refreshTokenTtlSeconds?: number;
  /**
   * The refresh reuse window: for this many seconds after a refresh token is rotated, the same client
   * presenting it again (two refreshes racing, or a retry after a lost response) gets the same successor
   * refresh token and a freshly signed access token for the same grant, instead of having its token family
   * revoked as a replay. The window also closes as soon as the successor is used. A different client
   * presenting the token, or any presentation after the window, still revokes the family. `0` turns the
   * window off (strict rotation). Whole seconds, at most 300. Default 5.
   */
  readonly refreshReuseWindowSeconds?: number;
  /** Default 600 (10 minutes). */
  readonly pendingAuthorizationTtlSeconds?: number;
  /** Default 2 592 000 (30 days). */
  readonly consentTtlSeconds?: number;
  /**
   * Per-endpoint rate limits (`/register`, `/authorize`, `/token`, `/consent`) through one `RateLimiter`.
   * Default: off (the host decides; the example host turns them on).
   */
  readonly rateLimits?: RateLimitsOptions;
  /**
   * How long a dynamically registered client may go unused before it is forgotten (`invalid_client`).
   * Use at the token endpoint or `/authorize` renews it (at most about once a day). Provisioned clients
   * never expire. Default 7 776 000 (90 days).
   */
  readonly unusedClientTtlSeconds?: number;
  /**
   * The most dynamically registered clients (RFC 7591) a tenant holds at once: unexpired ones, counted by
   * `ClientStore.countDynamic` at each registration. At the cap, `POST /register` answers 429
   * `rate_limited` (with `Retry-After`) until unused clients expire (`unusedClientTtlSeconds`) or the host
   * removes some, so anonymous registration cannot grow the database without end. Provisioned clients are
   * not counted. Concurrent registrations may pass the cap by a few. Default 10 000.
   */
  readonly maxDynamicClients?: number;
  /**
   * How long a client read at the token endpoint is served from this server's memory (a bounded LRU of
   * 10,000 clients). A client created, removed or renewed through this server is seen at once here; a
   * change made elsewhere — another instance, or `keyhold clients remove` on the same database — takes
   * effect within this many seconds. `0` reads the store on every request. Default 5.
   */
  readonly clientCacheTtlSeconds?: number;
  /**
   * Decides each dynamic registration (RFC 7591). Default {@link defaultRegistrationPolicy}: anonymous
   * registrations get `authorization_code` and `refresh_token` only; machine grants need an initial
   * access token of the tenant.
   */
  readonly registrationPolicy?: RegistrationPolicy;
  /**
   * The consent screen: the built-in page with replaced strings, a page the host renders, or a page the
   * host serves itself (see {@link ConsentOptions}). Default: the built-in English page at
   * `{issuer}/consent`.
   */
  readonly consent?: ConsentOptions;
  /**
   * The connected-apps page at `{issuer}/connected-apps`, where the signed-in person sees their grants and
   * revokes one (a form with the consent page's anti-forgery scheme). `strings` replaces any sentence of the
   * built-in page; `render` renders it from a `ConnectedAppsView` (its third argument is the built-in
   * renderer; return a string, or `{ html, contentSecurityPolicy }`); `false` serves no page (a host with a
   * page of its own calls `server.grants`). Default: the built-in English page.
   *
   * @example
   * ```ts
   * const options: Partial<AuthorizationServerOptions> = { connectedApps: { strings: { revoke: 'Disconnect' } } };
   * ```
   */
  readonly connectedApps?:
    | false
    | {
        readonly strings?: Partial<ConnectedAppsStrings>;
        readonly render?: (
          view: ConnectedAppsView,
          strings: ConnectedAppsStrings,
          builtIn: (view: ConnectedAppsView, strings: ConnectedAppsStrings) => string,
        ) => RenderedConsentPage | Promise<RenderedConsentPage>;
      };
  /**
   * Cross-origin calls from browser-based clients to the JSON endpoints (token, revocation, introspection,
   * metadata, JWKS): `allowedOrigins` (`'any'`, the default: these endpoints use no cookies, so `*` exposes
   * nothing ambient; or a list, answered with the origin itself) and `maxAgeSeconds` for preflight caching
   * (default 600). Registration follows `allowedOrigins` of the server instead, as its 403 does.
   */
  readonly cors?: { readonly allowedOrigins?: readonly string[] | 'any'; readonly maxAgeSeconds?: number };
  /**
   * The user of the host's session, for `fetch` (the route handlers take `HandlerRequest.userId`). A
   * `userId` passed to `fetch(request, { userId })` wins. Default: no user (login is then required, or
   * single-user mode applies).
   */
  readonly resolveUserId?: (request: Request) => string | undefined | Promise<string | undefined>;
  /** Largest request body `fetch` reads, in bytes. Default 1 MiB. */
  readonly bodyLimitBytes?: number;
  /** Per-request spans (`createOpenTelemetryTracing()` of `@keyhold/oauth-core/opentelemetry`). Default: none. */
  readonly tracing?: RequestTracing;
  /**
   * `private_key_jwt` client authentication (RFC 7523), on when `storage.onceStore` exists:
   * where key sets come from, the longest assertion lifetime and the clock skew allowed.
   */
  readonly clientAssertions?: ClientAssertionOptions;
  /**
   * DPoP, sender-constrained tokens (RFC 9449): on when `storage.onceStore` exists (each proof's `jti` is
   * spent once across instances), `false` turns it off. A token request with a valid proof gets a token
   * bound to the proof's key (`cnf.jkt`, `token_type: "DPoP"`); protected resources then accept it only with
   * a proof of that key. `signingAlgorithms`: the proof algorithms accepted (asymmetric only; default ES256,
   * ES384, ES512, PS256, RS256, EdDSA, Ed25519). `nonceSecret` (at least 32 bytes, the same on every
   * instance): derives stateless server nonces (RFC 9449 §8, §9), and with it nonces are required unless
   * `requireNonce: false`. Without a secret no nonce is asked for: proofs are then bounded by their ±300 s
   * `iat` window and their single-use `jti`.
   *
   * @example
   * ```ts
   * createAuthorizationServer({ ...options, dpop: { nonceSecret: deploymentSecrets.dpopNonce } });
   * ```
   */
  readonly dpop?:
    | false
    | {
        readonly nonceSecret?: string | Uint8Array;
        readonly requireNonce?: boolean;
        readonly signingAlgorithms?: readonly string[];
      };
  /**
   * The claims of a user (OpenID Connect Core §5.1), for the `userinfo` endpoint and the id_token:
   * `(tenant, userId, scopes)`, sync or async. Only the claims the granted scopes cover are released
   * (`profile`: `name`, `given_name`, `family_name`, `preferred_username`, `picture`…; `email`: `email`,
   * `email_verified`; `address`; `phone`), and `sub` is always the token's subject. Default: none (userinfo
   * answers `sub` only).
   *
   * @example
   * ```ts
   * createAuthorizationServer({
   *   ...options,
   *   userClaims: async (tenant, userId) => ({ name: users.get(userId)?.name, email: users.get(userId)?.email }),
   * });
   * ```
   */
  readonly userClaims?: UserClaimsHook;
}

/**
 * A page a consent renderer returns: the whole HTML document, optionally with the
 * `Content-Security-Policy` it needs (default: nothing external, inline styles only, forms to the server
 * and the client's redirect target).
 */
export type RenderedConsentPage = string | { readonly html: string; readonly contentSecurityPolicy?: string };

/**
 * How the consent step looks and where it lives. Three levels, each optional:
 * - `strings`: replace any sentence of the built-in page (a translation, a product name);
 * - `render`: render the page yourself from a {@link ConsentView}; the server still serves it at
 *   `{issuer}/consent`, sets the anti-forgery cookie and checks the posted decision. Its third argument is the
 *   built-in renderer, for a page that wraps or adapts the built-in one;
 * - `pageUrl`: send the browser to your own page instead; it reads the request with
 *   `server.consentRequest(tenant, requestId, userId)` and answers with its `approve()` or `deny()`, and
 *   your page owns its anti-forgery protection.
 *
 * @example
 * ```ts
 * const consent: ConsentOptions = {
 *   pageUrl: ({ tenant, requestId }) => `https://app.example/consent?tenant=${tenant}&req=${requestId}`,
 * };
 * ```
 */
export interface ConsentOptions {
  readonly strings?: Partial<ConsentStrings>;
  readonly render?: (
    view: ConsentView,
    strings: ConsentStrings,
    builtIn: (view: ConsentView, strings: ConsentStrings) => string,
  ) => RenderedConsentPage | Promise<RenderedConsentPage>;
  readonly pageUrl?: (request: {
    readonly tenant: string;
    readonly requestId: string;
    readonly issuer: string;
  }) => string;
}

/** The validated options the handlers share. */
export interface ServerContext {
  readonly baseUrl: string;
  /** The serialised origin of `baseUrl`: what a same-origin browser request carries as `Origin`. */
  readonly origin: string;
  /** The origins allowed to register clients from a browser: the server's own and `allowedOrigins`. */
  readonly registrationOrigins: readonly string[] | 'any';
  readonly tenants: TenantLookup;
  readonly storage: OAuthStorage;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics: AuthMetrics;
  readonly events: EventSink;
  readonly cimdResolver?: CimdResolver;
  readonly singleUserMode: boolean;
  readonly resourcePath: string;
  /**
   * Resources at URLs of the host's choosing, per tenant slug (`server.protectedResource(slug, { url })`):
   * the tenant issues tokens for them (RFC 8707), and for them alone when its config lists no `resources`.
   */
  readonly resourceUrls?: ReadonlyMap<string, readonly string[]>;
  readonly authorizationCodeTtlMs: number;
  readonly accessTokenTtlSeconds: number;
  readonly idTokenTtlSeconds: number;
  readonly refreshTokenTtlMs: number;
  /** 0: strict rotation. */
  readonly refreshReuseWindowMs: number;
  readonly pendingAuthorizationTtlMs: number;
  readonly consentTtlMs: number;
  /** Charges the per-client token rule once a confidential client has authenticated (rate limits on). */
  readonly authenticatedClientCheck?: AuthenticatedClientCheck;
  readonly unusedClientTtlMs: number;
  readonly maxDynamicClients: number;
  readonly registrationPolicy: RegistrationPolicy;
  readonly corsOrigins: readonly string[] | 'any';
  readonly corsMaxAgeSeconds: number;
  readonly resolveUserId?: (request: Request) => string | undefined | Promise<string | undefined>;
  readonly bodyLimitBytes: number;
  readonly tracing?: RequestTracing;
  readonly consent: {
    readonly strings: ConsentStrings;
    readonly render: NonNullable<ConsentOptions['render']>;
    readonly pageUrl?: NonNullable<ConsentOptions['pageUrl']>;
  };
  readonly connectedApps: {
    readonly enabled: boolean;
    readonly strings: ConnectedAppsStrings;
    readonly render: (
      view: ConnectedAppsView,
      strings: ConnectedAppsStrings,
      builtIn: (view: ConnectedAppsView, strings: ConnectedAppsStrings) => string,
    ) => RenderedConsentPage | Promise<RenderedConsentPage>;
    readonly builtIn: (view: ConnectedAppsView, strings: ConnectedAppsStrings) => string;
  };
  /** Present when `private_key_jwt` is offered (the storage has an `onceStore`). */
  readonly clientAssertions?: ClientAssertionSettings;
  /** Present when DPoP is offered (the storage has an `onceStore` and `dpop` is not `false`). */
  readonly dpop?: DpopSettings;
  readonly userClaims?: UserClaimsHook;
}

/** The longest refresh reuse window accepted: a window is for racing requests and quick retries. */
const MAX_REFRESH_REUSE_WINDOW_SECONDS = 300;

function resolveAllowedOrigins(value: AuthorizationServerOptions['allowedOrigins']): string[] | 'any' {
  if (value === undefined) return [];
  if (value === 'any') return 'any';
  if (!Array.isArray(value)) {
    throw optionCheck.invalid('allowedOrigins must be an array of origins or "any"');
  }
  return value.map((entry: unknown) => {
    let url: URL | undefined;
    try {
      url = typeof entry === 'string' ? new URL(entry) : undefined;
    } catch {
      url = undefined;
    }
    if (
      url === undefined ||
      originOf(url) === undefined ||
      url.pathname !== '/' ||
      url.search !== '' ||
      url.hash !== '' ||
      url.username !== '' ||
      url.password !== ''
    ) {
      throw optionCheck.invalid(`allowedOrigins: "${String(entry)}" is not an http(s) origin`);
    }
    return url.origin;
  });
}

/**
 * Resolvers that replace the ones the `cimd` option builds: what oauth-core's own tests inject (a fake
 * network answer without a network). Not part of the public options.
 */
export interface ResolverOverrides {
  readonly cimdResolver?: CimdResolver;
  readonly jwksResolver?: JwksResolver;
}

/**
 * Options of earlier versions that a host must move (a JavaScript caller would otherwise have them ignored):
 * the resolvers a host built are the `cimd` option now.
 */
export function refuseRemovedOptions(options: AuthorizationServerOptions): void {
  const given = options as { readonly cimdResolver?: unknown; readonly clientAssertions?: object };
  if (given?.cimdResolver !== undefined) {
    throw optionCheck.invalid(
      'cimdResolver is no longer an option: configure metadata-document clients with cimd: { … } (createCimdResolver options, without clock, logger and metrics)',
    );
  }
  if (given?.clientAssertions !== undefined && 'jwksResolver' in given.clientAssertions) {
    throw optionCheck.invalid(
      'clientAssertions.jwksResolver is no longer an option: key sets are fetched as cimd: { fetch, jwks: { … } } says',
    );
  }
}

/** Validates options once, at creation, and fills in the defaults. */
export function resolveOptions(
  options: AuthorizationServerOptions,
  overrides: ResolverOverrides = {},
): ServerContext {
  if (typeof options !== 'object' || options === null) throw optionCheck.invalid('options are required');
  const base = optionCheck.absoluteUrl('baseUrl', options.baseUrl, { requireHttps: true });
  if (base.search !== '' || base.hash !== '' || base.username !== '' || base.password !== '') {
    throw optionCheck.invalid('baseUrl must not carry a query, fragment or user information');
  }
  if (typeof options.tenants?.get !== 'function') throw optionCheck.invalid('tenants.get is required');
  if (typeof options.storage !== 'object' || options.storage === null) {
    throw optionCheck.invalid('storage is required');
  }
  if (options.registrationPolicy !== undefined && typeof options.registrationPolicy !== 'function') {
    throw optionCheck.invalid('registrationPolicy must be a function');
  }
  const resourcePath = options.resourcePath ?? '/mcp';
  if (!/^\/[A-Za-z0-9\-._~/]*$/.test(resourcePath) || resourcePath.endsWith('/')) {
    throw optionCheck.invalid('resourcePath must be an absolute path without a trailing slash');
  }
  const allowedOrigins = resolveAllowedOrigins(options.allowedOrigins);
  const consent = options.consent ?? {};
  for (const name of ['render', 'pageUrl'] as const) {
    if (consent[name] !== undefined && typeof consent[name] !== 'function') {
      throw optionCheck.invalid(`consent.${name} must be a function`);
    }
  }
  for (const [name, value] of Object.entries(consent.strings ?? {})) {
    if (!(name in DEFAULT_CONSENT_STRINGS) || typeof value !== 'string') {
      throw optionCheck.invalid(`consent.strings.${name} is not a replaceable string`);
    }
  }
  const connectedApps = options.connectedApps === false ? undefined : (options.connectedApps ?? {});
  if (connectedApps !== undefined) {
    if (typeof connectedApps !== 'object' || connectedApps === null) {
      throw optionCheck.invalid('connectedApps must be false or an object');
    }
    if (connectedApps.render !== undefined && typeof connectedApps.render !== 'function') {
      throw optionCheck.invalid('connectedApps.render must be a function');
    }
    for (const [name, value] of Object.entries(connectedApps.strings ?? {})) {
      if (name === 'activityReasons') {
        // Words per reason code: an object of strings, merged over the built-in words.
        const entries = typeof value === 'object' && value !== null ? Object.entries(value) : undefined;
        if (entries === undefined || entries.some(([, words]) => typeof words !== 'string')) {
          throw optionCheck.invalid('connectedApps.strings.activityReasons must map reason codes to strings');
        }
        continue;
      }
      if (!(name in DEFAULT_CONNECTED_APPS_STRINGS) || typeof value !== 'string') {
        throw optionCheck.invalid(`connectedApps.strings.${name} is not a replaceable string`);
      }
    }
  }
  if (options.userClaims !== undefined && typeof options.userClaims !== 'function') {
    throw optionCheck.invalid('userClaims must be a function');
  }
  if (options.resolveUserId !== undefined && typeof options.resolveUserId !== 'function') {
    throw optionCheck.invalid('resolveUserId must be a function');
  }
  const corsMaxAgeSeconds = optionCheck.integerInRange(
    'cors.maxAgeSeconds',
    options.cors?.maxAgeSeconds,
    600,
    {
      min: 0,
    },
  );
  const bodyLimitBytes = optionCheck.positiveInteger('bodyLimitBytes', options.bodyLimitBytes, 1024 * 1024);
  const corsOrigins = resolveAllowedOrigins(options.cors?.allowedOrigins ?? 'any');
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? silentLogger;
  const metrics = options.metrics === false ? noopMetrics : (options.metrics ?? defaultMetrics());
  const cimd = configureCimd(options.cimd, { clock, logger, metrics });
  const events = resolveEvents(options, clock, logger);
  const cimdResolver = overrides.cimdResolver ?? cimd.resolver;
  const assertionOptions = options.clientAssertions ?? {};
  const maxLifetimeSeconds = optionCheck.positiveInteger(
    'clientAssertions.maxLifetimeSeconds',
    assertionOptions.maxLifetimeSeconds,
    300,
  );
  const clockSkewSeconds = optionCheck.integerInRange(
    'clientAssertions.clockSkewSeconds',
    assertionOptions.clockSkewSeconds,
    60,
    { min: 0, max: 600 },
  );
  const onceStore = options.storage.onceStore;
  if (
    onceStore !== undefined &&
    (typeof onceStore?.consume !== 'function' || typeof onceStore.release !== 'function')
  ) {
    throw optionCheck.invalid('storage.onceStore must have consume and release');
  }
  const clientAssertions: ClientAssertionSettings | undefined = onceStore
    ? {
        onceStore,
        jwks: overrides.jwksResolver ?? overrides.cimdResolver?.jwks ?? cimd.jwks,
        maxLifetimeSeconds,
        clockSkewSeconds,
      }
    : undefined;
  const dpop = resolveDpop(options.dpop, onceStore);
  return {
    // One exact issuer spelling everywhere: no trailing slash.
    baseUrl: base.href.replace(/\/+$/, ''),
    origin: base.origin,
    registrationOrigins: allowedOrigins === 'any' ? 'any' : [base.origin, ...allowedOrigins],
    tenants: options.tenants,
    storage: options.storage,
    clock,
    logger,
    metrics,
    events,
    ...(cimdResolver ? { cimdResolver } : {}),
    singleUserMode: options.singleUserMode === true,
    resourcePath,
    authorizationCodeTtlMs:
      optionCheck.positiveInteger('authorizationCodeTtlSeconds', options.authorizationCodeTtlSeconds, 60) *
      1000,
    accessTokenTtlSeconds: optionCheck.positiveInteger(
      'accessTokenTtlSeconds',
      options.accessTokenTtlSeconds,
      900,
    ),
    idTokenTtlSeconds: optionCheck.positiveInteger('idTokenTtlSeconds', options.idTokenTtlSeconds, 900),
    refreshTokenTtlMs:
      optionCheck.positiveInteger('refreshTokenTtlSeconds', options.refreshTokenTtlSeconds, 2_592_000) * 1000,
    refreshReuseWindowMs:
      optionCheck.integerInRange('refreshReuseWindowSeconds', options.refreshReuseWindowSeconds, 5, {
        min: 0,
        max: MAX_REFRESH_REUSE_WINDOW_SECONDS,
      }) * 1000,
    pendingAuthorizationTtlMs:
      optionCheck.positiveInteger(
        'pendingAuthorizationTtlSeconds',
        options.pendingAuthorizationTtlSeconds,
        600,
      ) * 1000,
    consentTtlMs:
      optionCheck.positiveInteger('consentTtlSeconds', options.consentTtlSeconds, 2_592_000) * 1000,
    unusedClientTtlMs:
      optionCheck.positiveInteger('unusedClientTtlSeconds', options.unusedClientTtlSeconds, 7_776_000) * 1000,
    maxDynamicClients: optionCheck.positiveInteger('maxDynamicClients', options.maxDynamicClients, 10_000),
    registrationPolicy: options.registrationPolicy ?? defaultRegistrationPolicy,
    corsOrigins,
    corsMaxAgeSeconds,
    ...(options.resolveUserId ? { resolveUserId: options.resolveUserId } : {}),
    bodyLimitBytes,
    ...(options.tracing ? { tracing: options.tracing } : {}),
    consent: {
      strings: { ...DEFAULT_CONSENT_STRINGS, ...consent.strings },
      render: consent.render ?? renderConsentPage,
      ...(consent.pageUrl ? { pageUrl: consent.pageUrl } : {}),
    },
    connectedApps: {
      enabled: connectedApps !== undefined,
      strings: {
        ...DEFAULT_CONNECTED_APPS_STRINGS,
        ...connectedApps?.strings,
        activityReasons: {
          ...DEFAULT_CONNECTED_APPS_STRINGS.activityReasons,
          ...connectedApps?.strings?.activityReasons,
        },
      },
      render: connectedApps?.render ?? renderConnectedAppsPage,
      builtIn: renderConnectedAppsPage,
    },
    ...(clientAssertions ? { clientAssertions } : {}),
    ...(dpop ? { dpop } : {}),
    ...(options.userClaims ? { userClaims: options.userClaims } : {}),
  };
}

const DAY_SECONDS = 86_400;

/** The `events` option, checked once: the hook, the timeline store and its two bounds. */
function resolveEvents(options: AuthorizationServerOptions, clock: Clock, logger: Logger): EventSink {
  const events = options.events ?? {};
  if (typeof events !== 'object' || events === null) throw optionCheck.invalid('events must be an object');
  if (events.onEvent !== undefined && typeof events.onEvent !== 'function') {
    throw optionCheck.invalid('events.onEvent must be a function');
  }
  const store = options.storage.events;
  if (store !== undefined && (typeof store?.append !== 'function' || typeof store.list !== 'function')) {
    throw optionCheck.invalid('storage.events must have append and list');
  }
  return createEventSink({
    ...(events.onEvent ? { onEvent: events.onEvent } : {}),
    ...(store ? { store } : {}),
    maxEventsPerTenant: optionCheck.positiveInteger(
      'events.maxEventsPerTenant',
      events.maxEventsPerTenant,
      10_000,
    ),
    retentionMs:
      optionCheck.positiveInteger('events.retentionSeconds', events.retentionSeconds, 30 * DAY_SECONDS) *
      1000,
    clock,
    logger,
  });
}
