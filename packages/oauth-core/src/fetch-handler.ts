import type { FetchRequestInfo, HandlerRequest, HandlerResult } from '@keyhold/core';
import {
  PayloadTooLargeError,
  payloadTooLargeResponse,
  readHandlerRequest,
  StorageUnavailableError,
  toResponse,
  userIdOf,
} from '@keyhold/core';
import { preflightResult } from './cors.js';
import type { ServerContext } from './options.js';
import { storageOutageResult } from './responses.js';

type TenantHandler = (request: HandlerRequest, tenantSlug: string) => Promise<HandlerResult>;

/** The route handlers `fetch` dispatches to: the server's own, by name. */
export type RoutedHandlers = Readonly<
  Record<
    | 'authorize'
    | 'consentPage'
    | 'consent'
    | 'token'
    | 'register'
    | 'revoke'
    | 'introspect'
    | 'authorizationServerMetadata'
    | 'protectedResourceMetadata'
    | 'jwks'
    | 'userinfo',
    TenantHandler
  >
>;

/** Which browser origins a route's CORS answers follow: the JSON endpoints', registration's, or none. */
type CorsPolicy = 'json' | 'registration' | 'none';

interface Route {
  /** Path segments after the tenant slug, or the well-known form (prefix before, suffix after the slug). */
  readonly methods: Readonly<Record<string, TenantHandler>>;
  readonly cors: CorsPolicy;
}

interface RouteTable {
  /** `{base}/tenant/<slug><rest>`, keyed by `<rest>`. */
  readonly underTenant: ReadonlyMap<string, Route>;
  /** `/.well-known/<name>{base}/tenant/<slug><suffix>`, keyed by `<name>` and `<suffix>`. */
  readonly wellKnown: ReadonlyMap<string, Route>;
}

/**
 * Every path the authorization server owns, derived from `baseUrl`'s path and `resourcePath` (the
 * protected-resource metadata follows the configured resource, so the 401 challenge's
 * `resource_metadata` URL is always served).
 */
export function oauthRoutes(context: ServerContext, handlers: RoutedHandlers): RouteTable {
  const resourcePath = context.resourcePath;
  const json = (method: 'GET' | 'POST', handler: TenantHandler, cors: CorsPolicy = 'json'): Route => ({
    methods: { [method]: handler },
    cors,
  });
  const asMetadata = json('GET', handlers.authorizationServerMetadata);
  const prMetadata = json('GET', handlers.protectedResourceMetadata);
  const underTenant = new Map<string, Route>([
    ['/authorize', { methods: { GET: handlers.authorize }, cors: 'none' }],
    ['/consent', { methods: { GET: handlers.consentPage, POST: handlers.consent }, cors: 'none' }],
    ['/token', json('POST', handlers.token)],
    ['/register', json('POST', handlers.register, 'registration')],
    ['/revoke', json('POST', handlers.revoke)],
    ['/introspect', json('POST', handlers.introspect)],
    ['/userinfo', { methods: { GET: handlers.userinfo, POST: handlers.userinfo }, cors: 'json' }],
    ['/.well-known/jwks.json', json('GET', handlers.jwks)],
    ['/.well-known/oauth-authorization-server', asMetadata],
    ['/.well-known/openid-configuration', asMetadata],
    ['/.well-known/oauth-protected-resource', prMetadata],
    [`${resourcePath}/.well-known/oauth-protected-resource`, prMetadata],
  ]);
  const wellKnown = new Map<string, Route>([
    ['oauth-authorization-server|', asMetadata],
    ['openid-configuration|', asMetadata],
    [`oauth-protected-resource|${resourcePath}`, prMetadata],
  ]);
  return { underTenant, wellKnown };
}

const TENANT_SLUG = /^[^/]+$/;

function decodeSlug(raw: string): string | undefined {
  try {
    const slug = decodeURIComponent(raw);
    return TENANT_SLUG.test(slug) ? slug : undefined;
  } catch {
    return undefined;
  }
}

/** Finds the route and tenant of a path, or nothing when the server does not own the path. */
export function matchRoute(
  table: RouteTable,
  basePath: string,
  path: string,
): { readonly route: Route; readonly tenant: string } | undefined {
  const tenantPrefix = `${basePath}/tenant/`;
  if (path.startsWith(tenantPrefix)) {
    const rest = path.slice(tenantPrefix.length);
    const slash = rest.indexOf('/');
    if (slash <= 0) return undefined;
    const tenant = decodeSlug(rest.slice(0, slash));
    const route = table.underTenant.get(rest.slice(slash));
    return tenant !== undefined && route !== undefined ? { route, tenant } : undefined;
  }
  const wellKnown = /^\/\.well-known\/([a-z-]+)(\/.*)$/.exec(path);
  if (wellKnown === null) return undefined;
  const inner = wellKnown[2]!;
  if (!inner.startsWith(tenantPrefix)) return undefined;
  const rest = inner.slice(tenantPrefix.length);
  const slash = rest.indexOf('/');
  const rawSlug = slash === -1 ? rest : rest.slice(0, slash);
  const suffix = slash === -1 ? '' : rest.slice(slash);
  const tenant = decodeSlug(rawSlug);
  const route = table.wellKnown.get(`${wellKnown[1]}|${suffix}`);
  return tenant !== undefined && route !== undefined ? { route, tenant } : undefined;
}

/**
 * Builds the authorization server's `fetch`: routes every path it owns (see {@link oauthRoutes}), answers
 * CORS preflights on the JSON endpoints, 405 with `Allow` for a known path and another method, and 404 for
 * anything else (a host mounting several areas can route by path prefix or try each `fetch` in turn).
 */
export function createOAuthFetch(
  context: ServerContext,
  handlers: RoutedHandlers,
): {
  readonly fetch: (request: Request, info?: FetchRequestInfo) => Promise<Response>;
  readonly handle: (request: HandlerRequest) => Promise<HandlerResult>;
  readonly ownsPath: (pathname: string) => boolean;
} {
  const table = oauthRoutes(context, handlers);
  const basePath = new URL(context.baseUrl).pathname.replace(/\/+$/, '');
  const ownsPath = (pathname: string): boolean => matchRoute(table, basePath, pathname) !== undefined;

  /** What a path and method get before any body is read: a handler, or the answer itself. */
  function dispatch(
    path: string,
    rawMethod: string,
    origin: string | undefined,
  ):
    | { readonly run: TenantHandler; readonly tenant: string; readonly html: boolean }
    | { readonly answer: HandlerResult } {
    const found = matchRoute(table, basePath, path);
    if (found === undefined) {
      return {
        answer: {
          status: 404,
          headers: { 'content-type': 'application/json; charset=utf-8' },
          body: JSON.stringify({ error: 'not_found', error_description: 'No such endpoint.' }),
        },
      };
    }
    const { route, tenant } = found;
    const method = rawMethod.toUpperCase();
    const allowed = Object.keys(route.methods);
    if (method === 'OPTIONS' && route.cors !== 'none') {
      const corsOrigins = route.cors === 'registration' ? context.registrationOrigins : context.corsOrigins;
      const preflight: HandlerRequest = {
        method: 'OPTIONS',
        path,
        query: '',
        headers: origin === undefined ? {} : { origin },
        body: '',
      };
      return { answer: preflightResult(preflight, corsOrigins, allowed, context.corsMaxAgeSeconds) };
    }
    const run = route.methods[method === 'HEAD' ? 'GET' : method];
    if (run === undefined) {
      return {
        answer: {
          status: 405,
          headers: { allow: [...allowed, ...(route.cors === 'none' ? [] : ['OPTIONS'])].join(', ') },
        },
      };
    }
    return { run, tenant, html: route.cors === 'none' };
  }

  // The Keyhold-handler face (a request already read, as `@keyhold/adapter-node` reads it): no web
  // Request/Response conversion, the fast path on Node.
  const handle = async (request: HandlerRequest): Promise<HandlerResult> => {
    const target = dispatch(request.path, request.method, request.headers['origin']);
    return 'answer' in target ? target.answer : target.run(request, target.tenant);
  };

  const fetch = async (request: Request, info: FetchRequestInfo = {}): Promise<Response> => {
    const target = dispatch(
      new URL(request.url).pathname,
      request.method,
      request.headers.get('origin') ?? undefined,
    );
    if ('answer' in target) return toResponse(target.answer);
    let handlerRequest: HandlerRequest;
    try {
      const userId = (await userIdOf(info)) ?? (await context.resolveUserId?.(request));
      handlerRequest = await readHandlerRequest(
        request,
        { ...info, ...(userId === undefined ? {} : { userId }) },
        { bodyLimitBytes: context.bodyLimitBytes },
      );
    } catch (error) {
      if (error instanceof PayloadTooLargeError) return payloadTooLargeResponse();
      // The host's resolveUserId may read a session store: its outage is a 503 like any other.
      if (error instanceof StorageUnavailableError) {
        context.logger.warn(
          {
            event: 'storage_unavailable',
            component: error.component,
            endpoint: 'resolveUserId',
            tenant: target.tenant,
          },
          'storage unavailable: answered 503',
        );
        return toResponse(storageOutageResult(error, target.html));
      }
      throw error;
    }
    return toResponse(await target.run(handlerRequest, target.tenant));
  };
  return { fetch, handle, ownsPath };
}
