import type { FetchRequestInfo, HandlerRequest, HandlerResult, RawHandler, RawRequest } from '@keyhold/core';
import { PayloadTooLargeError, StorageUnavailableError } from '@keyhold/core';
import { jsonResult, readRequestBody, toResponse } from '@keyhold/internal';
import { preflightResult } from './cors.js';
import type { ServerContext } from './options.js';

import { storageOutageResult } from './responses.js';

/** The unit of one endpoint: a request already read, and the tenant slug its path names. */
export type TenantHandler = (request: HandlerRequest, tenantSlug: string) => Promise<HandlerResult>;

/** The endpoint handlers `fetch` dispatches to, by name (internal: tests call them directly). */
export type EndpointHandlers = Readonly<
  Record<
    | 'authorize'
    | 'consentPage'
    | 'consent'
    | 'connectedAppsPage'
    | 'connectedAppsRevoke'
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
  readonly methods: Readonly<Record<string, TenantHandler>>;
  readonly cors: CorsPolicy;
  /** Whether the endpoint uses the host's user (authorize, consent, connected apps): only those resolve it. */
  readonly usesUser: boolean;
  /** The methods `methods` serves (plus `OPTIONS` where CORS applies): the 405's `Allow`, computed once. */
  readonly allow: string;
}

function route(methods: Readonly<Record<string, TenantHandler>>, cors: CorsPolicy, usesUser = false): Route {
  const allowed = Object.keys(methods);
  return { methods, cors, usesUser, allow: [...allowed, ...(cors === 'none' ? [] : ['OPTIONS'])].join(', ') };
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
export function oauthRoutes(context: ServerContext, handlers: EndpointHandlers): RouteTable {
  const resourcePath = context.resourcePath;
  const json = (method: 'GET' | 'POST', handler: TenantHandler, cors: CorsPolicy = 'json'): Route =>
    route({ [method]: handler }, cors);
  const asMetadata = json('GET', handlers.authorizationServerMetadata);
  const prMetadata = json('GET', handlers.protectedResourceMetadata);
  const underTenant = new Map<string, Route>([
    ['/authorize', route({ GET: handlers.authorize }, 'none', true)],
    ['/consent', route({ GET: handlers.consentPage, POST: handlers.consent }, 'none', true)],
    ...(context.connectedApps.enabled
      ? ([
          [
            '/connected-apps',
            route({ GET: handlers.connectedAppsPage, POST: handlers.connectedAppsRevoke }, 'none', true),
          ],
        ] as const)
      : []),
    ['/token', json('POST', handlers.token)],
    ['/register', json('POST', handlers.register, 'registration')],
    ['/revoke', json('POST', handlers.revoke)],
    ['/introspect', json('POST', handlers.introspect)],
    ['/userinfo', route({ GET: handlers.userinfo, POST: handlers.userinfo }, 'json')],
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

const NOT_FOUND: HandlerResult = {
  status: 404,
  headers: { 'content-type': 'application/json; charset=utf-8' },
  body: JSON.stringify({ error: 'not_found', error_description: 'No such endpoint.' }),
};

/** The 413 every Keyhold edge gives (`payloadTooLargeResponse` of core, as a result). */
const PAYLOAD_TOO_LARGE: HandlerResult = jsonResult(413, {
  error: 'invalid_request',
  error_description: 'The request body is too large.',
});

/** The path and the query of an absolute URL, by one scan (a `Request`'s URL is already normalised). */
function splitUrl(url: string): { readonly path: string; readonly query: string } {
  const start = url.indexOf('/', url.indexOf('//') + 2);
  if (start === -1) return { path: '/', query: '' };
  let end = url.indexOf('#', start);
  if (end === -1) end = url.length;
  const mark = url.indexOf('?', start);
  return mark === -1 || mark > end
    ? { path: url.slice(start, end), query: '' }
    : { path: url.slice(start, mark), query: url.slice(mark + 1, end) };
}

/** The request line and headers of a web `Request`, and its body read on demand: one pass, no copy kept. */
function rawOf(request: Request, info: FetchRequestInfo): RawRequest {
  const { path, query } = splitUrl(request.url);
  const headers: Record<string, string> = {};
  request.headers.forEach((value, name) => {
    headers[name] = value;
  });
  return {
    method: request.method,
    url: request.url,
    path,
    query,
    headers,
    readBody: (limitBytes) => readRequestBody(request, limitBytes),
    info,
  };
}

/**
 * Builds the authorization server's `fetch`: routes every path it owns (see {@link oauthRoutes}), answers
 * CORS preflights on the JSON endpoints, 405 with `Allow` for a known path and another method, and 404 for
 * anything else. One pass per request: the path split once, one route match, one method check, the body read
 * once, the user resolved only where a user is used, one conversion to the handler's request and one back.
 * The same code serves the raw handler (`RAW_HANDLER` of `@keyhold/core`) that Node's `toNodeListener` calls
 * without building a web `Request` or `Response`.
 */
export function createOAuthFetch(
  context: ServerContext,
  handlers: EndpointHandlers,
): {
  readonly fetch: (request: Request, info?: FetchRequestInfo) => Promise<Response>;
  readonly ownsPath: (pathname: string) => boolean;
  readonly rawHandler: (pathname: string) => RawHandler | undefined;
} {
  const table = oauthRoutes(context, handlers);
  const basePath = new URL(context.baseUrl).pathname.replace(/\/+$/, '');
  const ownsPath = (pathname: string): boolean => matchRoute(table, basePath, pathname) !== undefined;

  /**
   * The host's user, asked for only by an endpoint that uses one: `info.userId` first, then the
   * `resolveUserId` option (given a body-less `Request` with the headers, when the request came raw).
   */
  async function userOf(raw: RawRequest, request: Request | undefined): Promise<string | undefined> {
    const source = raw.info.userId;
    const fromInfo = typeof source === 'function' ? await source() : source;
    if (typeof fromInfo === 'string' && fromInfo !== '') return fromInfo;
    if (context.resolveUserId === undefined) return undefined;
    return context.resolveUserId(request ?? new Request(raw.url, { headers: raw.headers }));
  }

  async function serve(raw: RawRequest, request?: Request): Promise<HandlerResult> {
    const { path, query, method } = raw;
    const found = matchRoute(table, basePath, path);
    if (found === undefined) return NOT_FOUND;
    const { route, tenant } = found;
    if (method === 'OPTIONS' && route.cors !== 'none') {
      const corsOrigins = route.cors === 'registration' ? context.registrationOrigins : context.corsOrigins;
      const origin = raw.headers['origin'];
      const preflight: HandlerRequest = {
        method,
        path,
        query: '',
        headers: origin === undefined ? {} : { origin },
        body: '',
      };
      return preflightResult(preflight, corsOrigins, Object.keys(route.methods), context.corsMaxAgeSeconds);
    }
    const run = route.methods[method === 'HEAD' ? 'GET' : method];
    if (run === undefined) return { status: 405, headers: { allow: route.allow } };
    let body = '';
    let userId: string | undefined;
    try {
      if (method !== 'GET' && method !== 'HEAD') body = await raw.readBody(context.bodyLimitBytes);
      if (route.usesUser) userId = await userOf(raw, request);
    } catch (error) {
      if (error instanceof PayloadTooLargeError) return PAYLOAD_TOO_LARGE;
      // The host's user lookup may read a session store: its outage is a 503 like any other.
      if (error instanceof StorageUnavailableError) {
        context.logger.warn(
          { event: 'storage_unavailable', component: error.component, endpoint: 'resolveUserId', tenant },
          'storage unavailable: answered 503',
        );
        return storageOutageResult(error, route.cors === 'none');
      }
      throw error;
    }
    const info = raw.info;
    const handlerRequest: HandlerRequest = {
      method,
      path,
      query,
      headers: raw.headers,
      body,
      ...(userId === undefined ? {} : { userId }),
      ...(info.ip === undefined ? {} : { ip: info.ip }),
    };
    return run(handlerRequest, tenant);
  }

  const fetch = async (request: Request, info: FetchRequestInfo = {}): Promise<Response> =>
    toResponse(await serve(rawOf(request, info), request));
  const rawHandler = (pathname: string): RawHandler | undefined =>
    ownsPath(pathname) ? (raw) => serve(raw) : undefined;
  return { fetch, ownsPath, rawHandler };
}
