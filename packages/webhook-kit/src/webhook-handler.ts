import type {
  Clock,
  FetchHandler,
  FetchRequestInfo,
  HandlerRequest,
  HandlerResult,
  Logger,
  OnceStore,
  RequestTracing,
  ToolModule,
} from '@keyhold/core';
import {
  createMemoryOnceStore,
  PayloadTooLargeError,
  StorageUnavailableError,
  silentLogger,
  systemClock,
} from '@keyhold/core';
import type { Handler } from '@keyhold/internal';
import {
  constantTimeEqual,
  isAllowedOrigin,
  onceKey,
  originOf,
  parseQuery,
  readHandlerRequest,
  toResponse,
  traceHandler,
} from '@keyhold/internal';
import { bodyKind, parseBody } from './body.js';
import { discoverWebhookRoutes, type WebhookRoute } from './discovery.js';
import { WebhookError } from './errors.js';
import { DEFAULT_REDACTED_HEADERS, redactHeaders, type WebhookMetadata } from './metadata.js';
import { check } from './option-checks.js';
import { duplicateResult, errorResult, successResult } from './responses.js';
import type { SignatureVerification, SignatureVerifier } from './signatures/types.js';
import { createSignatureVerifier } from './signatures/verifier.js';
import type { ReadSource } from './source-files.js';

/** Options of {@link createWebhookHandler}. */
export interface WebhookHandlerOptions {
  /**
   * Per-request spans (`createOpenTelemetryTracing({ spanPrefix: 'keyhold.' })` of
   * `@keyhold/oauth-core/opentelemetry`). Default: none.
   */
  readonly tracing?: RequestTracing;
  /**
   * Reads each module's source for its `@webhook` tags. Default: the file at its `sourcePath` (through
   * `node:fs` where the runtime has it). On a runtime without a file system (workerd), pass the sources
   * you bundled: `(path) => sources[path]`.
   */
  readonly readSource?: ReadSource;
  /**
   * The tool modules whose methods may be exposed, under `{basePath}/{toolModuleId}/…`. A module without an
   * `instance` has no routes; `@webhook` tags are read from each module's `sourcePath`.
   */
  modules: readonly ToolModule[];
  /**
   * The shared secret every request must carry in `X-Webhook-Secret` (the host maps `SVC_WEBHOOK_SECRET`
   * here). `undefined`: no requirement, and one warning is logged at creation.
   */
  secret?: string | undefined;
  /** Expose methods whose name starts with `handle` without a tag (default `true`). */
  exposeHandlePrefix?: boolean;
  /** Signature verification per route, keyed by `'<toolModuleId>/<path>'` (the URL after the base path). */
  signatures?: Readonly<Record<string, SignatureVerification>>;
  /** Largest body accepted, in bytes (default 1 MiB); larger ones get 413. */
  bodyLimitBytes?: number;
  /** The path the handler is mounted at (default `/webhook`). */
  basePath?: string;
  /** Header names (any case) whose values methods never see (default {@link DEFAULT_REDACTED_HEADERS}). */
  redactHeaders?: readonly string[];
  /**
   * The spend-once store (`OnceStore` of `@keyhold/core`) where accepted deliveries are spent, as
   * `webhook:<route>:<delivery id>`, and released again when their method fails (default: the memory store of
   * this process; share one across instances).
   */
  onceStore?: OnceStore;
  /** Source of the receipt time and of signature tolerance checks (default the system clock). */
  clock?: Clock;
  /**
   * Receives a warning at creation without a secret or for an unreadable module source, a debug line for
   * each module without an `instance`, and an error line when a method throws.
   */
  logger?: Logger;
  /**
   * Browser origins allowed to call webhooks (default none). Webhook senders are servers and send neither
   * `Origin` nor `Sec-Fetch-Site`; a request with a foreign `Origin`, or that a browser marks `cross-site`,
   * is a web page forging a delivery (a form POST needs no preflight) and gets 403.
   */
  allowedOrigins?: readonly string[];
}

/**
 * The webhooks area: a web-standard `fetch` for every path under the base path, `ownsPath` saying which
 * paths those are, and the routes it serves.
 *
 * @example
 * ```ts
 * const webhooks: WebhookHandler = createWebhookHandler({ modules });
 * logger.info({ routes: webhooks.routes.map((route) => route.key) }, 'webhooks ready');
 * Deno.serve((request) => webhooks.fetch(request));
 * ```
 */
export interface WebhookHandler {
  /** The routes discovered at creation, in registration order. */
  readonly routes: readonly WebhookRoute[];
  /**
   * Serves every path under the base path (a path with no route is 404, or 401 first without the shared
   * secret); 404 for any other path. A body larger than `bodyLimitBytes` is refused with 413 while it is read,
   * before the secret is checked, so it is never buffered whole. The user of `info` is never asked for.
   */
  readonly fetch: FetchHandler;
  /** Whether `fetch` serves this path: every path under the base path (`/webhook/` by default). */
  ownsPath(pathname: string): boolean;
}

interface CompiledRoute extends WebhookRoute {
  readonly instance: object;
  readonly verify?: SignatureVerifier;
  readonly requireSharedSecret: boolean;
}

const DEFAULT_BODY_LIMIT_BYTES = 1024 * 1024;
const DEFAULT_BASE_PATH = '/webhook';
const POST_ONLY = Object.freeze({ allow: 'POST' });

const { invalid } = check;

function isOverLimit(body: string, limitBytes: number): boolean {
  // A UTF-16 code unit encodes to at most 3 UTF-8 bytes, so short bodies skip the byte count.
  if (body.length * 3 <= limitBytes) return false;
  return new TextEncoder().encode(body).byteLength > limitBytes;
}

/**
 * The route key of a request path, or `undefined` when the path is not under the base path or a segment
 * is not decodable. Segments are percent-decoded; one that decodes to `/` never matches.
 */
function routeKeyOf(path: string, prefix: string): string | undefined {
  if (!path.startsWith(prefix)) return undefined;
  const rest = path.slice(prefix.length);
  if (!rest.includes('%')) return rest;
  const segments = rest.split('/');
  for (let i = 0; i < segments.length; i++) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(segments[i]!);
    } catch {
      return undefined;
    }
    if (decoded.includes('/')) return undefined;
    segments[i] = decoded;
  }
  return segments.join('/');
}

/**
 * Creates the webhook handler of Area D: `POST {basePath}/<toolModuleId>/<method-or-path>` calls the tool-module
 * method with the body's fields plus `_webhook` metadata, and answers `{ ok: true, result }`. Routes are
 * discovered once, here (see {@link discoverWebhookRoutes}); options are validated here too, and a
 * {@link WebhookError} is thrown for bad ones. Requests never throw: every refusal is a JSON error
 * result (401, 404, 405 with `Allow: POST`, 413, 415, 400), and a method that throws gets a generic 500
 * while the error goes to the logger.
 *
 * @example
 * ```ts
 * const webhooks = createWebhookHandler({
 *   modules: [
 *     { toolModuleId: 'github', displayName: 'GitHub', sourcePath: '/srv/modules/github.ts', instance: github },
 *   ],
 *   secret: process.env.SVC_WEBHOOK_SECRET,
 *   logger,
 * });
 * const answer = await webhooks.fetch(new Request('https://host.example/webhook/github/handlePush', { method: 'POST' }));
 * ```
 */
export function createWebhookHandler(options: WebhookHandlerOptions): WebhookHandler {
  const { routes, fetch, ownsPath } = createWebhookHandlerWithHandle(options);
  return { routes, fetch, ownsPath };
}

/**
 * The webhooks area that is also callable as a Keyhold `Handler` over a request already read: the unit
 * webhook-kit's own tests and benchmarks call. Not part of the package entry.
 */
export function createWebhookHandlerWithHandle(options: WebhookHandlerOptions): WebhookHandler & Handler {
  if (!Array.isArray(options.modules)) throw invalid('modules must be an array of tool modules');
  const secret = options.secret;
  if (secret !== undefined && (typeof secret !== 'string' || secret === '')) {
    throw invalid('secret must be a non-empty string, or undefined for no shared secret');
  }
  const bodyLimitBytes = check.positiveInteger(
    'bodyLimitBytes',
    options.bodyLimitBytes,
    DEFAULT_BODY_LIMIT_BYTES,
  );
  const basePath = (options.basePath ?? DEFAULT_BASE_PATH).replace(/\/+$/, '');
  if (!basePath.startsWith('/') && basePath !== '') throw invalid('basePath must start with "/"');
  const prefix = `${basePath}/`;
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? silentLogger;
  // The once store is first called by a signed delivery: its shape is checked here, not on that delivery.
  if (
    options.onceStore !== undefined &&
    (typeof options.onceStore?.consume !== 'function' || typeof options.onceStore.release !== 'function')
  ) {
    throw invalid('onceStore must have consume and release');
  }
  const onceStore = options.onceStore ?? createMemoryOnceStore();
  const allowedOrigins = options.allowedOrigins ?? [];
  // An entry that is not an origin would never match, quietly refusing the page it was meant to allow.
  if (
    !Array.isArray(allowedOrigins) ||
    allowedOrigins.some((o) => typeof o !== 'string' || originOf(o) === undefined)
  ) {
    throw invalid('allowedOrigins must be an array of origins (scheme://host[:port])');
  }
  const redactedNames = options.redactHeaders ?? DEFAULT_REDACTED_HEADERS;
  if (!Array.isArray(redactedNames) || redactedNames.some((header) => typeof header !== 'string')) {
    throw invalid('redactHeaders must be an array of header names');
  }
  const redacted = new Set(redactedNames.map((header) => header.toLowerCase()));
  if (options.readSource !== undefined && typeof options.readSource !== 'function') {
    throw invalid('readSource must be a function');
  }

  const discovered = discoverWebhookRoutes(options.modules, {
    exposeHandlePrefix: options.exposeHandlePrefix ?? true,
    logger,
    ...(options.readSource === undefined ? {} : { readSource: options.readSource }),
  });
  // Discovery refused two reachable modules of one id, so each route's id names one instance.
  const instances = new Map<string, object>();
  for (const module of options.modules) {
    if (module.instance !== undefined) instances.set(module.toolModuleId, module.instance);
  }
  const signatures = options.signatures ?? {};
  if (typeof signatures !== 'object' || signatures === null || Array.isArray(signatures)) {
    throw invalid('signatures must be an object keyed by route');
  }
  const known = new Set(discovered.map((route) => route.key));
  for (const key of Object.keys(signatures)) {
    if (!known.has(key)) {
      throw new WebhookError(
        'ERR_UNKNOWN_ROUTE',
        `signatures["${key}"] names no route; routes are: ${[...known].join(', ') || '(none)'}`,
      );
    }
  }
  const routes = new Map<string, CompiledRoute>();
  for (const route of discovered) {
    const config = Object.hasOwn(signatures, route.key) ? signatures[route.key] : undefined;
    routes.set(route.key, {
      ...route,
      instance: instances.get(route.toolModuleId)!,
      ...(config !== undefined ? { verify: createSignatureVerifier(config, route.key) } : {}),
      requireSharedSecret: config === undefined || config.requireSharedSecret === true,
    });
  }

  if (secret === undefined) {
    logger.warn(
      { routes: discovered.length },
      'webhook endpoints accept unauthenticated requests: no shared secret is configured (SVC_WEBHOOK_SECRET)',
    );
  }

  async function invoke(route: CompiledRoute, params: Record<string, unknown>): Promise<unknown> {
    const method = (route.instance as Record<string, unknown>)[route.method];
    if (typeof method !== 'function')
      throw new TypeError(`${route.toolModuleId}.${route.method} is not a function`);
    return await method.call(route.instance, params);
  }

  async function handle(request: HandlerRequest): Promise<HandlerResult> {
    const receivedAt = clock.now();
    const key = routeKeyOf(request.path, prefix);
    const route = key === undefined ? undefined : routes.get(key);

    // The shared secret is checked before the route is looked up, so a caller without it learns nothing
    // about which secret-protected modules and methods exist. Signature-verified routes authenticate by their
    // signature instead (senders such as GitHub cannot add the header), so those routes are discoverable.
    if (secret !== undefined && (route === undefined || route.requireSharedSecret)) {
      if (!constantTimeEqual(request.headers['x-webhook-secret'] ?? '', secret)) {
        logger.debug(
          { path: request.path, ip: request.ip },
          'webhook refused: missing or wrong X-Webhook-Secret',
        );
        return errorResult(401, 'unauthorized', 'a valid X-Webhook-Secret header is required');
      }
    }
    if (route === undefined) return errorResult(404, 'not_found', 'no webhook at this path');
    if (fromForeignPage(request.headers, allowedOrigins)) {
      logger.warn(
        { event: 'webhook_cross_site_refused', path: request.path },
        'webhook refused: browser request',
      );
      return errorResult(403, 'forbidden', 'webhooks do not accept requests from web pages');
    }
    if (request.method !== 'POST') {
      return errorResult(405, 'method_not_allowed', 'webhooks accept POST only', POST_ONLY);
    }
    if (isOverLimit(request.body, bodyLimitBytes)) {
      return errorResult(413, 'payload_too_large', `the body exceeds ${bodyLimitBytes} bytes`);
    }
    const kind = bodyKind(request.headers['content-type'], request.body);
    if (kind === undefined) {
      return errorResult(
        415,
        'unsupported_media_type',
        'send application/json or application/x-www-form-urlencoded',
      );
    }
    let replayKey: string | undefined;
    let replayExpiresAt = 0;
    if (route.verify !== undefined) {
      const outcome = await route.verify(request.headers, request.body, receivedAt);
      if (!outcome.ok) {
        logger.debug({ route: route.key, reason: outcome.reason }, 'webhook signature refused');
        return errorResult(401, 'invalid_signature', outcome.reason);
      }
      if (outcome.replay !== undefined) {
        replayKey = onceKey('webhook', route.key, outcome.replay.id);
        replayExpiresAt = outcome.replay.expiresAt;
      }
    }
    const body = parseBody(kind, request.body);
    if (!body.ok) return errorResult(400, 'invalid_request', body.message);
    const query = parseQuery(request.query, { maxParameters: 1000 });
    if (!query.ok) return errorResult(400, 'invalid_request', `query: ${query.message}`);

    if (replayKey !== undefined && !(await onceStore.consume(replayKey, replayExpiresAt, receivedAt))) {
      logger.debug({ route: route.key }, 'duplicate webhook delivery dropped');
      return duplicateResult();
    }
    const metadata: WebhookMetadata = {
      method: 'POST',
      headers: redactHeaders(request.headers, redacted),
      query: { ...query.params },
      timestamp: Math.floor(receivedAt / 1000),
    };
    const params = body.fields;
    params['_webhook'] = metadata;

    let result: unknown;
    try {
      result = await invoke(route, params);
    } catch (error) {
      if (error instanceof StorageUnavailableError) {
        // The method's own store is down: a 503 the sender retries (answered by answeringOutages below).
        if (replayKey !== undefined) await onceStore.release(replayKey);
        throw error;
      }
      logger.error(
        {
          err: error,
          toolModuleId: route.toolModuleId,
          method: route.method,
          route: route.key,
        },
        'webhook method threw',
      );
      // The delivery was not processed, so its retry must not be dropped as a duplicate.
      if (replayKey !== undefined) await onceStore.release(replayKey);
      return errorResult(500, 'server_error', 'the webhook method failed');
    }
    try {
      return successResult(result);
    } catch (error) {
      logger.error(
        {
          err: error,
          toolModuleId: route.toolModuleId,
          method: route.method,
          route: route.key,
        },
        'webhook method returned a value that is not JSON-serialisable',
      );
      return errorResult(500, 'server_error', 'the webhook method failed');
    }
  }

  const ownsPath = (pathname: string): boolean => pathname.startsWith(prefix);

  async function fetch(request: Request, info: FetchRequestInfo = {}): Promise<Response> {
    const path = new URL(request.url).pathname;
    if (!ownsPath(path)) {
      return toResponse(errorResult(404, 'not_found', 'no webhook at this path'));
    }
    let handlerRequest: HandlerRequest;
    try {
      handlerRequest = await readHandlerRequest(request, info, { bodyLimitBytes });
    } catch (error) {
      if (!(error instanceof PayloadTooLargeError)) throw error;
      return toResponse(errorResult(413, 'payload_too_large', `the body exceeds ${bodyLimitBytes} bytes`));
    }
    return toResponse(await traced(handlerRequest));
  }

  // A storage outage (the replay cache, or the method's own store) is a 503 with Retry-After: senders
  // retry a 5xx, and the delivery was not processed.
  async function answeringOutages(request: HandlerRequest): Promise<HandlerResult> {
    try {
      return await handle(request);
    } catch (error) {
      if (!(error instanceof StorageUnavailableError)) throw error;
      logger.warn(
        { event: 'storage_unavailable', component: error.component, endpoint: 'webhook', path: request.path },
        'webhook: storage unavailable, answered 503',
      );
      return errorResult(503, 'temporarily_unavailable', 'the service is temporarily unavailable', {
        'retry-after': String(error.retryAfterSeconds),
      });
    }
  }

  const traced = traceHandler(answeringOutages, options.tracing, 'webhook');
  return Object.assign(traced, { routes: Object.freeze(discovered), fetch, ownsPath });
}

/** Whether a browser sent this on behalf of a page of another site (servers send neither header). */
function fromForeignPage(headers: HandlerRequest['headers'], allowedOrigins: readonly string[]): boolean {
  const origin = headers['origin'];
  if (origin !== undefined) return !isAllowedOrigin(origin, allowedOrigins);
  return headers['sec-fetch-site'] === 'cross-site';
}
