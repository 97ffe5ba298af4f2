import type {
  Clock,
  FetchHandler,
  FetchRequestInfo,
  HandlerRequest,
  HandlerResult,
  Logger,
  RateLimiter,
  RequestTracing,
} from '@keyhold/core';
import {
  createMemoryRateLimiter,
  PayloadTooLargeError,
  StorageUnavailableError,
  silentLogger,
  systemClock,
} from '@keyhold/core';
import type { Handler } from '@keyhold/internal';
import {
  consumeRateLimit,
  jsonResult,
  parseQuery,
  rateLimitedResult,
  readHandlerRequest,
  sha256Base64url,
  storageUnavailableResult,
  toResponse,
  traceHandler,
} from '@keyhold/internal';
import { loadBundledProviders } from '../bundled-providers.js';
import type { McpProviderMap } from '../mcp-provider.js';
import { parseProviderMap } from '../mcp-provider.js';
import { functionOption, headerValueOption, optionCheck } from '../option-check.js';
import { createProviderIndex } from '../search.js';

/** Options of {@link createRegistryApi}. */
export interface RegistryApiOptions {
  /**
   * Per-request spans (`createOpenTelemetryTracing({ spanPrefix: 'keyhold.' })` of
   * `@keyhold/oauth-core/opentelemetry`). Default: none.
   */
  readonly tracing?: RequestTracing;
  /**
   * The providers to serve: a map of id → `McpProvider` (raw JSON is fine; it is validated here). Default: the
   * bundled `providers.json`. Invalid data throws `RegistryError` `ERR_INVALID_PROVIDERS` at creation.
   */
  providers?: unknown;
  /**
   * Counter store for the per-IP limit (default: {@link createMemoryRateLimiter}). When it throws
   * `StorageUnavailableError` the request is answered 503 with `Retry-After` (`/health` is never limited).
   */
  rateLimiter?: RateLimiter;
  /** Requests allowed per client IP per window (default 100). */
  rateLimitPerWindow?: number;
  /** Length of the rate-limit window in seconds (default 60). */
  rateLimitWindowSeconds?: number;
  /** `max-age` of the `Cache-Control` header on provider answers, in seconds (default 300). */
  cacheMaxAgeSeconds?: number;
  /** `Access-Control-Allow-Origin` value (default `*`: the data is public and read-only). */
  corsOrigin?: string;
  /** Source of time for the rate-limit windows (default: the system clock). */
  clock?: Clock;
  /** Receives a debug line per rejected request (never a request body). */
  logger?: Logger;
}

/**
 * The registry API area: a web-standard `fetch` (Bun, Deno, workerd, Node through `@keyhold/adapter-node`)
 * and `ownsPath` saying which paths it serves.
 *
 * @example
 * ```ts
 * const api: RegistryApi = createRegistryApi();
 * Bun.serve({ fetch: (request, server) => api.fetch(request, { ip: server.requestIP(request)?.address }) });
 * ```
 */
export interface RegistryApi {
  /**
   * Serves `/health` and `/api/providers…` and answers 404 for any other path. `info.ip` keys the per-IP
   * rate limit (without it, every request shares one budget); the user of `info` is never asked for.
   */
  readonly fetch: FetchHandler;
  /** Whether `fetch` serves this path: `/health`, `/api/providers` and everything under it. */
  ownsPath(pathname: string): boolean;
}

/** The API reads no body; a request that sends a large one anyway is refused before it is buffered. */
const BODY_LIMIT_BYTES = 64 * 1024;

interface Prepared {
  readonly body: string;
  readonly etag: string;
}

function prepare(value: unknown): Prepared {
  const body = JSON.stringify(value);
  return { body, etag: `"${sha256Base64url(body)}"` };
}

// RFC 9110 §13.1.2: If-None-Match compares with the weak comparison, so a W/ prefix is ignored.
function etagMatches(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  return header.split(',').some((candidate) => {
    const tag = candidate.trim();
    return tag === '*' || tag === etag || tag === `W/${etag}`;
  });
}

/**
 * Creates the registry HTTP API area (see {@link RegistryApi}). It routes the full paths
 * itself: `GET /api/providers`, `/api/providers/search?q=`, `/api/providers/<id>` and `/health`, so a host
 * mounts it under `/api/*` and `/health`. Answers carry `ETag` (304 on `If-None-Match`), `Cache-Control:
 * public, max-age=300` and CORS headers; each client IP (`request.ip`, which the adapter derives, trusting a
 * proxy header only when configured) gets 100 requests per minute, then 429 with `Retry-After`.
 *
 * @example
 * ```ts
 * import { createServer } from 'node:http';
 * import { toNodeListener } from '@keyhold/adapter-node';
 * const api = createRegistryApi({ providers: JSON.parse(readFileSync('providers.json', 'utf8')) });
 * createServer(toNodeListener(api.fetch)).listen(8080);
 * // or, on Deno: Deno.serve((request, info) => api.fetch(request, { ip: info.remoteAddr.hostname }));
 * ```
 */
export function createRegistryApi(options: RegistryApiOptions = {}): RegistryApi {
  const { fetch, ownsPath } = createRegistryApiWithHandle(options);
  return { fetch, ownsPath };
}

/** A path without one trailing slash (`/health/` is `/health`). */
function trimmed(pathname: string): string {
  return pathname.length > 1 && pathname.endsWith('/') ? pathname.slice(0, -1) : pathname;
}

function ownsRegistryPath(pathname: string): boolean {
  const path = trimmed(pathname);
  return path === '/health' || path === '/api/providers' || path.startsWith('/api/providers/');
}

/**
 * The registry API that is also callable as a Keyhold `Handler` over a request already read: the unit
 * registry-client's own tests call. Not part of the package entry.
 */
export function createRegistryApiWithHandle(options: RegistryApiOptions = {}): RegistryApi & Handler {
  const providers: McpProviderMap =
    options.providers === undefined ? loadBundledProviders() : parseProviderMap(options.providers);
  const limit = optionCheck.positiveInteger('rateLimitPerWindow', options.rateLimitPerWindow, 100);
  const windowSeconds = optionCheck.positiveInteger(
    'rateLimitWindowSeconds',
    options.rateLimitWindowSeconds,
    60,
  );
  const maxAge = optionCheck.positiveInteger('cacheMaxAgeSeconds', options.cacheMaxAgeSeconds, 300);
  const rateLimiter = options.rateLimiter ?? createMemoryRateLimiter();
  functionOption('rateLimiter.increment', rateLimiter.increment, undefined);
  const clock = options.clock ?? systemClock;
  functionOption('clock.now', clock.now, undefined);
  const logger = options.logger ?? silentLogger;
  const corsOrigin = headerValueOption('corsOrigin', options.corsOrigin, '*');

  const cors: Record<string, string> = {
    'access-control-allow-origin': corsOrigin,
    'access-control-allow-methods': 'GET, HEAD, OPTIONS',
    'access-control-allow-headers': 'accept, if-none-match, user-agent',
    'access-control-expose-headers': 'etag, retry-after',
  };
  const cacheable = { ...cors, 'cache-control': `public, max-age=${maxAge}` };
  const uncacheable = { ...cors, 'cache-control': 'no-store' };

  // The data never changes for the life of the API, so bodies and ETags are computed once.
  const index = createProviderIndex(providers);
  const list = prepare(providers);
  const health = prepare({ status: 'ok' });
  const single = new Map<string, Prepared>();
  for (const provider of Object.values(providers)) single.set(provider.id, prepare(provider));

  function answer(
    request: HandlerRequest,
    status: number,
    prepared: Prepared,
    cache = cacheable,
  ): HandlerResult {
    const headers = { ...cache, etag: prepared.etag };
    if (status === 200 && etagMatches(request.headers['if-none-match'], prepared.etag)) {
      return { status: 304, headers };
    }
    const result = jsonResult(status, undefined, headers);
    return request.method === 'HEAD'
      ? { status, headers: result.headers }
      : { ...result, body: prepared.body };
  }

  function search(request: HandlerRequest): HandlerResult {
    const query = parseQuery(request.query);
    if (!query.ok) {
      return jsonResult(400, { error: 'invalid_request', error_description: query.message }, uncacheable);
    }
    const q = query.params['q'];
    if (q === undefined || q.trim() === '') {
      return jsonResult(
        400,
        { error: 'invalid_request', error_description: 'the query parameter q is required' },
        uncacheable,
      );
    }
    const results = index.search(q);
    return answer(request, 200, prepare({ results, query: q, count: results.length }));
  }

  async function limited(request: HandlerRequest): Promise<HandlerResult | undefined> {
    // Without an address (a misconfigured adapter) every such request shares one budget: safe, and visible.
    const ip = request.ip ?? 'unknown';
    let outcome: Awaited<ReturnType<typeof consumeRateLimit>>;
    try {
      outcome = await consumeRateLimit(
        rateLimiter,
        { key: `registry:${ip}`, limit, windowSeconds },
        clock.now(),
      );
    } catch (error) {
      // The counter store is down: 503 with Retry-After, like every Keyhold edge (not a 500, and not
      // unlimited serving either: the limit is what keeps one client from taking the API).
      if (!(error instanceof StorageUnavailableError)) throw error;
      logger.warn(
        { event: 'storage_unavailable', component: error.component, endpoint: 'registry' },
        'registry: storage unavailable, answered 503',
      );
      const result = storageUnavailableResult(error);
      return { ...result, headers: { ...result.headers, ...cors } };
    }
    if (outcome.ok) return undefined;
    const retryAfter = outcome.retryAfterSeconds;
    logger.debug({ ip, retryAfter }, 'registry rate limit exceeded');
    return rateLimitedResult(
      retryAfter,
      `more than ${limit} requests; retry in ${retryAfter} s`,
      uncacheable,
    );
  }

  async function handle(request: HandlerRequest): Promise<HandlerResult> {
    if (!ownsRegistryPath(request.path)) return jsonResult(404, { error: 'not_found' }, uncacheable);
    const path = trimmed(request.path);
    if (request.method === 'OPTIONS') {
      return { status: 204, headers: { ...cors, 'access-control-max-age': '86400' } };
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return jsonResult(
        405,
        { error: 'method_not_allowed' },
        { ...uncacheable, allow: 'GET, HEAD, OPTIONS' },
      );
    }
    // Health probes come from load balancers at a steady rate; limiting them would report an outage.
    if (path === '/health') return answer(request, 200, health, uncacheable);

    const rejected = await limited(request);
    if (rejected !== undefined) return rejected;

    if (path === '/api/providers') return answer(request, 200, list);
    const rest = path.slice('/api/providers/'.length);
    if (rest === 'search') return search(request);
    let id: string;
    try {
      id = decodeURIComponent(rest);
    } catch {
      id = rest;
    }
    const found = single.get(id.toLowerCase());
    if (found !== undefined) return answer(request, 200, found);
    return answer(request, 404, prepare({ error: 'provider_not_found', providerId: id }));
  }

  async function fetch(request: Request, info: FetchRequestInfo = {}): Promise<Response> {
    // A path it does not own is answered before its body is read.
    if (!ownsRegistryPath(new URL(request.url).pathname)) {
      return toResponse(jsonResult(404, { error: 'not_found' }, uncacheable));
    }
    let handlerRequest: HandlerRequest;
    try {
      handlerRequest = await readHandlerRequest(request, info, { bodyLimitBytes: BODY_LIMIT_BYTES });
    } catch (error) {
      if (!(error instanceof PayloadTooLargeError)) throw error;
      return toResponse(jsonResult(413, { error: 'payload_too_large' }, uncacheable));
    }
    return toResponse(await traced(handlerRequest));
  }

  const traced = traceHandler(handle, options.tracing, 'registry');
  return Object.assign(traced, { fetch, ownsPath: ownsRegistryPath });
}
