import type { FetchHandler, HandlerRequest, HandlerResult, RawArea, RequestOutcome } from '@keyhold/core';
import { RAW_HANDLER, StorageUnavailableError } from '@keyhold/core';
import { storageUnavailableResult } from '@keyhold/internal';
import type { AccessTokenCheck, VerifyAccessTokenOptions } from './bearer.js';
import { bearerChallenge, checkBearer, policyFor, presentsCredentials } from './bearer.js';
import type { ClientAdministration } from './client-administration.js';
import { createClientAdministration } from './client-administration.js';
import { createCachedClientStore, DEFAULT_CLIENT_CACHE_TTL_SECONDS } from './client-cache.js';
import { type ConsentLookup, lookUpConsentRequest } from './consent-request.js';
import { corsHeaders } from './cors.js';
import { DpopNonceError } from './dpop/nonce-error.js';
import { OAuthError } from './errors.js';
import { decides, decisionEvent, reasonOf } from './events/decision.js';
import { isAnonymous } from './events/emitter.js';
import { catalogued } from './events/reasons.js';
import { resourceRefusals } from './events/resource.js';
import { listTimeline } from './events/timeline.js';
import type { EndpointHandlers, TenantHandler } from './fetch-handler.js';
import { createOAuthFetch } from './fetch-handler.js';
import { createGrantAdministration, type GrantAdministration } from './grant-administration.js';
import { authorizeHandler } from './handlers/authorize.js';
import { connectedAppsPageHandler, connectedAppsRevokeHandler } from './handlers/connected-apps.js';
import { consentDecisionHandler, consentPageHandler, refuseCrossOriginConsent } from './handlers/consent.js';
import { introspectHandler } from './handlers/introspect.js';
import { authorizationServerMetadata, jwksDocument, protectedResourceMetadata } from './handlers/metadata.js';
import { refuseCrossOriginRegistration, registerHandler } from './handlers/register.js';
import { revokeHandler } from './handlers/revoke.js';
import { tokenHandler } from './handlers/token.js';
import { userinfoHandler } from './handlers/userinfo.js';
import { createKeyCache } from './keys.js';
import type { AuthEventAttributes } from './metrics-types.js';
import { noopMetrics } from './metrics-types.js';
import type { AuthorizationServerOptions, ResolverOverrides, ServerContext } from './options.js';
import { refuseRemovedOptions, resolveOptions } from './options.js';
import {
  createProtectedResource,
  type ProtectedResource,
  type ProtectedResourceOptions,
} from './protected-resource.js';
import {
  createAuthenticatedClientCheck,
  createRateLimitCheck,
  type RateLimitedEndpoint,
  RateLimitedError,
} from './rate-limits.js';
import type { RequestEvent } from './request-event.js';
import { errorPage, oauthErrorResult, storageOutageResult } from './responses.js';
import type { AuthEvent } from './storage.js';
import type { Tenant } from './tenant.js';
import { resolveTenant } from './tenant.js';
import { type OAuthTokenVerifier, verifyForResource } from './token-verifier.js';

/**
 * The authorization server: one web-standard `fetch` for every endpoint of every tenant and `ownsPath` to
 * say which paths it serves, plus bearer verification for the protected resource. It answers bad input with a
 * status, and a storage outage (`StorageUnavailableError` of
 * `@keyhold/core`, from a store, the tenant lookup or the rate limiter) with 503 and `Retry-After`
 * (`temporarily_unavailable` JSON, or an error page on authorize and consent). It throws only for other
 * storage failures and broken tenant configuration (a host's listener turns those into a 500).
 *
 * @example
 * ```ts
 * const server: AuthorizationServer = createAuthorizationServer(options);
 * const response = await server.fetch(new Request('https://auth.example/tenant/demo/.well-known/jwks.json'));
 * ```
 */
export interface AuthorizationServer {
  /**
   * Every endpoint of every tenant as one web-standard handler: `{base}/tenant/<slug>/…`, the RFC 8414 and
   * RFC 9728 well-known forms (derived from `baseUrl` and `resourcePath`), CORS preflights on the JSON
   * endpoints. Anything else is 404. `info.userId` (or the `resolveUserId` option) names the host's user; it is
   * resolved only by the endpoints that use a user (authorize, the consent page and decision), never by a token,
   * registration or discovery request.
   *
   * @example
   * ```ts
   * Bun.serve({ fetch: (request) => server.fetch(request) });
   * ```
   */
  readonly fetch: FetchHandler;
  /**
   * Whether `fetch` serves this path (any method), for a host that routes by path before choosing a
   * handler.
   *
   * @example
   * ```ts
   * if (server.ownsPath(new URL(request.url).pathname)) return server.fetch(request);
   * ```
   */
  ownsPath(pathname: string): boolean;
  /**
   * Verifies `Authorization: Bearer …` for the tenant's protected resource: the claims, or a ready 401/403
   * with the `WWW-Authenticate` challenge. Never throws for a bad token. When storage is unavailable while
   * the token is checked (tenant lookup, revocation list), the ready result is a 503 with `Retry-After`
   * (`temporarily_unavailable`), never a 401: the client must keep its token and retry.
   */
  verifyAccessToken(
    tenantSlug: string,
    authorizationHeader: string | undefined,
    options?: VerifyAccessTokenOptions,
  ): Promise<AccessTokenCheck>;
  /**
   * A verifier in the MCP SDK's `OAuthTokenVerifier` shape for the tenant's protected resource (or
   * `options.resource`): the token half of the bearer policy (signature, issuer, expiry, audience and
   * revocation), for the SDK's own bearer middleware, which applies scopes itself. A Keyhold MCP endpoint
   * takes {@link AuthorizationServer.protectedResource} instead, which applies the whole policy.
   *
   * @example
   * ```ts
   * const info = await server.tokenVerifier('demo').verifyAccessToken(token);
   * ```
   */
  tokenVerifier(tenantSlug: string, options?: { readonly resource?: string }): OAuthTokenVerifier;
  /**
   * The tenant's protected resource as a resource server needs it: its URL (the token audience; default
   * `{issuer}{resourcePath}`), its RFC 9728 metadata URL and document, realm and a `verify` applying the
   * bearer policy with the tenant's `resourceScopes`. With `options.url` the resource lives where the host
   * chooses (`https://example.com/mcp`): the tenant issues tokens for it from now on, and the host serves
   * its metadata at `wellKnownUrl` (`createMcpEndpoint` does). Tenants are looked up when a request is verified.
   *
   * @example
   * ```ts
   * const endpoint = createMcpEndpoint({ resource: server.protectedResource('demo'), serverInfo, toolModules });
   * ```
   */
  protectedResource(tenantSlug: string, options?: ProtectedResourceOptions): ProtectedResource;
  /**
   * A pending authorization as data with its `approve()` and `deny()`, for a host that serves its own
   * consent page (option `consent.pageUrl`). `userId` is the host's logged-in user (omit it in single-user
   * mode); a request another user started is `wrong_user` and must not be shown. The host's page must
   * protect its own form against cross-site requests.
   *
   * @example
   * ```ts
   * const found = await server.consentRequest('demo', requestId, session.userId);
   * if (found.ok) console.log(found.request.client.name, found.request.scopes);
   * ```
   */
  consentRequest(tenantSlug: string, requestId: string, userId?: string): Promise<ConsentLookup>;
  /** The issuer of a tenant: `{baseUrl}/tenant/<slug>`. */
  issuer(tenantSlug: string): string;
  /**
   * Host-side client management: provision clients that may use machine grants (and never expire), list
   * and remove clients. Tenants are checked with the server's {@link TenantLookup}.
   */
  readonly clients: ClientAdministration;
  /**
   * Grants people and administrators can see and end: list by user or client, revoke one (a person's own,
   * with `userId`), revoke all of a client's or a user's. See {@link GrantAdministration}.
   */
  readonly grants: GrantAdministration;
  /**
   * The decision timeline of a tenant (the storage's `events` store), newest first: a client's or a user's
   * events (`clientId`, `userId`), at or after `since` (epoch ms), at most `limit` (default 100, at most
   * 1000). Throws `OAuthCoreError` `ERR_INVALID_OPTIONS` when the storage keeps no timeline.
   *
   * @example
   * ```ts
   * const events = await server.listEvents('demo', { clientId, since: Date.now() - 3_600_000 });
   * for (const event of events) console.log(event.reason, event.userId);
   * ```
   */
  listEvents(
    tenantSlug: string,
    query?: {
      readonly clientId?: string;
      readonly userId?: string;
      readonly since?: number;
      readonly limit?: number;
    },
  ): Promise<readonly AuthEvent[]>;
  /**
   * Adds an event decided outside the server (a brokered login of `@keyhold/token-vault`, say) to the same
   * `events` hook and timeline as the server's own, within the same bounds: it returns at once, and a failing
   * hook or store is logged, never thrown. A reason outside the catalogue is recorded as `other`; an event
   * that names no user counts against the anonymous bound.
   *
   * @example
   * ```ts
   * server.recordEvent({ at: Date.now(), tenant: 'demo', category: 'broker', reason: 'broker.token_deleted', status: 200, userId: 'alice' });
   * ```
   */
  recordEvent(event: AuthEvent): void;
}

type Run = (
  context: ServerContext,
  tenant: Tenant,
  request: HandlerRequest,
  event: RequestEvent,
) => Promise<HandlerResult>;

/**
 * Creates the tenant-scoped OAuth 2.1 authorization server. Options are validated here (an
 * {@link OAuthCoreError} with code `ERR_INVALID_OPTIONS` for bad ones); tenants are looked up per request,
 * and checked when `createStaticTenants` creates them or else on their first request.
 *
 * @example
 * ```ts
 * const server = createAuthorizationServer({
 *   baseUrl: 'https://auth.example',
 *   tenants: createStaticTenants({ demo: { signingKeys: [key], singleUserId: 'owner' } }),
 *   storage: createMemoryStorage(),
 * });
 * Bun.serve({ fetch: (request) => server.fetch(request) });
 * ```
 */
export function createAuthorizationServer(options: AuthorizationServerOptions): AuthorizationServer {
  refuseRemovedOptions(options);
  // The endpoint handlers stay off the public object: `fetch` is the one way in.
  const {
    authorize: _authorize,
    consentPage: _consentPage,
    consent: _consent,
    connectedAppsPage: _connectedAppsPage,
    connectedAppsRevoke: _connectedAppsRevoke,
    token: _token,
    register: _register,
    revoke: _revoke,
    introspect: _introspect,
    authorizationServerMetadata: _authorizationServerMetadata,
    protectedResourceMetadata: _protectedResourceMetadata,
    jwks: _jwks,
    userinfo: _userinfo,
    ...server
  } = createAuthorizationServerWithEndpoints(options);
  return server;
}

/** The server and its per-endpoint handlers (see {@link createAuthorizationServerWithEndpoints}). */
export type AuthorizationServerWithEndpoints = AuthorizationServer & EndpointHandlers & RawArea;

/**
 * The server together with its per-endpoint handlers (each takes a request already read and the tenant slug):
 * the unit oauth-core's own tests and benchmarks call, which may also replace the resolvers the `cimd` option
 * builds. Not part of the package entry.
 */
export function createAuthorizationServerWithEndpoints(
  options: AuthorizationServerOptions & ResolverOverrides,
): AuthorizationServerWithEndpoints {
  const { cimdResolver, jwksResolver, ...serverOptions } = options;
  const validated = resolveOptions(serverOptions, {
    ...(cimdResolver === undefined ? {} : { cimdResolver }),
    ...(jwksResolver === undefined ? {} : { jwksResolver }),
  });
  // Client reads on the token endpoint come from a short-lived cache that every write through this server
  // invalidates (client-cache.ts); the administration below writes through the same wrapped store.
  // Resources the host places at URLs of its choosing (protectedResource), read by the tenant lookup.
  const resourceUrls = new Map<string, string[]>();
  const resolved: ServerContext = {
    ...validated,
    resourceUrls,
    storage: {
      ...validated.storage,
      clients: createCachedClientStore(validated.storage.clients, {
        ttlSeconds: options.clientCacheTtlSeconds ?? DEFAULT_CLIENT_CACHE_TTL_SECONDS,
        clock: validated.clock,
      }),
    },
  };
  const rateLimitCheck = createRateLimitCheck(options.rateLimits, resolved.clock, resolved.logger);
  const authenticatedClientCheck = createAuthenticatedClientCheck(
    options.rateLimits,
    resolved.clock,
    resolved.logger,
  );
  const context: ServerContext = authenticatedClientCheck
    ? { ...resolved, authenticatedClientCheck }
    : resolved;
  const keyCache = createKeyCache();

  function endpoint(
    name: AuthEventAttributes['endpoint'],
    html: boolean,
    run: Run,
    rateLimitRule?: RateLimitedEndpoint,
    originCheck?: (context: ServerContext, request: HandlerRequest) => void,
  ): TenantHandler {
    return async (request, tenantSlug) => {
      const event: RequestEvent = {};
      const endSpan = context.tracing?.start(name, tenantSlug);
      let result: HandlerResult;
      try {
        // A request its Origin check refuses spends no budget: a page on another site must not hold this
        // browser's (or this loopback address's) clients at 429. The check reads headers only.
        originCheck?.(context, request);
        // Before any other work (tenant lookup included): a limited request costs one counter increment.
        if (rateLimitCheck !== undefined && rateLimitRule !== undefined) {
          await rateLimitCheck(rateLimitRule, request, tenantSlug);
        }
        const tenant = await resolveTenant(context, keyCache, tenantSlug);
        if (!tenant) {
          const error = new OAuthError('invalid_request', 'unknown tenant', { status: 404 });
          event.error_code = error.code;
          event.reason = 'request.unknown_tenant';
          result = html ? errorPage(404, error) : oauthErrorResult(error);
        } else {
          result = await run(context, tenant, request, event);
        }
      } catch (error) {
        if (error instanceof StorageUnavailableError) {
          // An outage is nobody's fault at the client: 503 with Retry-After (RFC 6749 §4.1.2.1
          // `temporarily_unavailable`), so a client retries later and keeps its tokens.
          event.error_code = 'temporarily_unavailable';
          logStorageOutage(error, name, tenantSlug);
          result = storageOutageResult(error, html);
          record(name, result.status, event, tenantSlug);
          endSpan?.({ ...outcomeOf(event), status: result.status });
          return html ? result : withCors(request, result);
        }
        if (!(error instanceof OAuthError)) {
          record(name, 500, event, tenantSlug);
          endSpan?.({ ...outcomeOf(event), status: 500, error });
          throw error;
        }
        event.error_code = error.code;
        if (event.reason !== undefined) {
          // The stable reason of a refused grant (id_jag.replayed, …): the rule broken, never token material.
          context.logger.info(
            {
              event: 'grant_refused',
              reason: event.reason,
              endpoint: name,
              tenant: tenantSlug,
              error: error.code,
            },
            'grant refused',
          );
        }
        if (error.code === 'invalid_client') {
          // A security event with a stable reason; the description names the rule, never a secret.
          context.logger.info(
            {
              event: 'authentication_failed',
              reason: 'invalid_client',
              endpoint: name,
              tenant: tenantSlug,
              detail: error.message,
            },
            'client authentication failed',
          );
        }
        if (error instanceof RateLimitedError) {
          // 429 with Retry-After, never a 401: the client is not wrong, only early.
          const retryAfter = { 'retry-after': String(error.retryAfterSeconds) };
          const page = html ? errorPage(429, error) : oauthErrorResult(error, retryAfter);
          result = { ...page, headers: { ...page.headers, ...retryAfter } };
        } else if (html) {
          result = errorPage(error.status, error);
        } else {
          // RFC 6749 §5.2: a 401 invalid_client carries the scheme the client may authenticate with.
          result = oauthErrorResult(
            error,
            error.code === 'invalid_client'
              ? { 'www-authenticate': `Basic realm="${tenantSlug}"` }
              : error instanceof DpopNonceError
                ? { 'dpop-nonce': error.nonce }
                : {},
          );
        }
      }
      record(name, result.status, event, tenantSlug);
      endSpan?.({ ...outcomeOf(event), status: result.status });
      return html ? result : withCors(request, result);
    };
  }

  // The JSON endpoints use no cookies, so by default any origin may read their answers: browser-based
  // MCP clients need this. (Registration's preflight follows the origins allowed to register; its
  // answers stay readable so a refused page can see why.)
  function withCors(request: HandlerRequest, result: HandlerResult): HandlerResult {
    if (result.headers['access-control-allow-origin'] !== undefined) return result;
    return { ...result, headers: { ...result.headers, ...corsHeaders(request, context.corsOrigins) } };
  }

  /** One warn line per request an outage failed: what failed and where, never a secret or a driver message. */
  function logStorageOutage(error: StorageUnavailableError, endpoint: string, tenantSlug: string): void {
    context.logger.warn(
      { event: 'storage_unavailable', component: error.component, endpoint, tenant: tenantSlug },
      'storage unavailable: answered 503',
    );
  }

  // With `noopMetrics` (metrics turned off) nothing is built per request to be thrown away.
  const recording = context.metrics !== noopMetrics;
  function outcomeOf(event: RequestEvent): Omit<RequestOutcome, 'status'> {
    return {
      ...(event.grant_type === undefined ? {} : { grantType: event.grant_type }),
      ...(event.client_type === undefined ? {} : { clientType: event.client_type }),
      ...(event.error_code === undefined ? {} : { errorCode: event.error_code }),
    };
  }

  /**
   * A refused bearer token (presented, not missing) as a security event (`verifyAccessToken` and
   * `protectedResource().verify`). Through `tokenVerifier` the SDK's middleware answers the client, so this
   * line is only the detail, at debug.
   */
  function logBearerFailure(tenantSlug: string, detail: string, level: 'info' | 'debug' = 'info'): void {
    context.logger[level](
      { event: 'authentication_failed', reason: 'invalid_token', tenant: tenantSlug, detail },
      'bearer token refused',
    );
  }

  /** The one place a handler's decision becomes its metric count and its event (hook and timeline). */
  function record(
    name: AuthEventAttributes['endpoint'],
    status: number,
    event: RequestEvent,
    tenantSlug: string,
  ): void {
    const reason = reasonOf(name, status, event);
    const decided = decisionEvent(name, status, tenantSlug, event, reason, context.clock.now());
    if (decided !== undefined) context.events.emit(decided, { anonymous: isAnonymous(event) });
    if (!recording) return;
    context.metrics.event({
      endpoint: name,
      status,
      ...(event.grant_type === undefined ? {} : { grant_type: event.grant_type }),
      ...(event.client_type === undefined ? {} : { client_type: event.client_type }),
      ...(event.error_code === undefined ? {} : { error_code: event.error_code }),
      ...(decides(name) ? { reason } : {}),
    });
  }

  const handlers: EndpointHandlers = {
    authorize: endpoint('authorize', true, authorizeHandler, 'authorize'),
    // The consent page only reads the pending request; the decision (which saves consent and issues a code)
    // is what the consent rule counts.
    consentPage: endpoint('consent', true, consentPageHandler),
    consent: endpoint('consent', true, consentDecisionHandler, 'consent', refuseCrossOriginConsent),
    connectedAppsPage: endpoint('connected_apps', true, connectedAppsPageHandler),
    // A revoke counts against the consent rule (per signed-in user): both are a person's decisions.
    connectedAppsRevoke: endpoint(
      'connected_apps',
      true,
      connectedAppsRevokeHandler,
      'consent',
      refuseCrossOriginConsent,
    ),
    token: endpoint('token', false, tokenHandler, 'token'),
    register: endpoint('register', false, registerHandler, 'register', refuseCrossOriginRegistration),
    revoke: endpoint('revoke', false, revokeHandler),
    introspect: endpoint('introspect', false, introspectHandler),
    authorizationServerMetadata: endpoint('metadata', false, async (ctx, tenant) =>
      authorizationServerMetadata(ctx, tenant),
    ),
    protectedResourceMetadata: endpoint('metadata', false, async (_ctx, tenant) =>
      protectedResourceMetadata(context, tenant),
    ),
    jwks: endpoint('jwks', false, async (_ctx, tenant) => jwksDocument(tenant)),
    userinfo: endpoint('userinfo', false, userinfoHandler),
  };

  const resourceServices = {
    context,
    resolveTenant: (slug: string) => resolveTenant(context, keyCache, slug),
    logBearerFailure: (slug: string, detail: string) => logBearerFailure(slug, detail),
    logStorageOutage,
    placed: resourceUrls,
  };
  const routed = createOAuthFetch(context, handlers);
  return {
    ...handlers,
    fetch: routed.fetch,
    ownsPath: routed.ownsPath,
    // Not on the public type: found by `toNodeListener` (through `compose`) to serve Node without web objects.
    [RAW_HANDLER]: routed.rawHandler,
    async verifyAccessToken(tenantSlug, authorizationHeader, verifyOptions = {}) {
      try {
        const tenant = await resolveTenant(context, keyCache, tenantSlug);
        if (!tenant) {
          return {
            ok: false,
            result: bearerChallenge({
              realm: tenantSlug,
              ...(presentsCredentials(authorizationHeader) ? { error: 'invalid_token' as const } : {}),
              description: 'unknown tenant',
            }),
          };
        }
        const check = await checkBearer(
          context,
          tenant,
          authorizationHeader,
          policyFor(tenant, verifyOptions),
          verifyOptions.request,
          resourceRefusals(context, tenantSlug),
        );
        if (!check.ok && presentsCredentials(authorizationHeader)) {
          logBearerFailure(tenantSlug, check.result.headers['www-authenticate'] ?? '');
        }
        return check;
      } catch (error) {
        // The token may well be good: a 401 would make the client drop it because the database blinked.
        if (!(error instanceof StorageUnavailableError)) throw error;
        logStorageOutage(error, 'bearer', tenantSlug);
        return { ok: false, result: storageUnavailableResult(error) };
      }
    },
    tokenVerifier: (tenantSlug, verifierOptions = {}) => ({
      async verifyAccessToken(token) {
        // A storage outage (tenant lookup, revocation list) propagates as the StorageUnavailableError it
        // is, never as `invalid_token`: the resource answers 503 and the client keeps its token.
        const tenant = await resolveTenant(context, keyCache, tenantSlug);
        try {
          return await verifyForResource(context, tenant, token, verifierOptions.resource);
        } catch (error) {
          if (error instanceof OAuthError) logBearerFailure(tenantSlug, error.message, 'debug');
          throw error;
        }
      },
    }),
    protectedResource: (tenantSlug, resourceOptions) =>
      createProtectedResource(resourceServices, tenantSlug, resourceOptions),
    async consentRequest(tenantSlug, requestId, userId) {
      const tenant = await resolveTenant(context, keyCache, tenantSlug);
      if (!tenant) return { ok: false, reason: 'unknown_tenant' };
      return lookUpConsentRequest(context, tenant, requestId, userId, (status, event) =>
        record('consent', status, event, tenantSlug),
      );
    },
    issuer: (tenantSlug) => `${context.baseUrl}/tenant/${encodeURIComponent(tenantSlug)}`,
    clients: createClientAdministration({
      storage: context.storage,
      clock: context.clock,
      logger: context.logger,
      tenants: context.tenants,
      events: context.events,
      grantRetention: context.grantRetention,
    }),
    grants: createGrantAdministration(context),
    listEvents: (tenantSlug, query = {}) => listTimeline(context.events.store, tenantSlug, query),
    recordEvent: (event) =>
      context.events.emit(
        { ...event, reason: catalogued(event.reason) },
        { anonymous: event.userId === undefined },
      ),
  };
}
