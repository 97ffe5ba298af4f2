import {
  type Area,
  type Clock,
  createMemoryOnceStore,
  type FetchRequestInfo,
  type Logger,
  type OnceStore,
  type RequestTracing,
  StorageUnavailableError,
  silentLogger,
  systemClock,
} from '@keyhold/core';
import { optionValidators } from '@keyhold/internal';
import type { AuthorizationServer, ProtectedResource } from '@keyhold/oauth-core';
import {
  type AuthInfo,
  createMcpHandler,
  isLegacyRequest,
  McpServer,
  type McpServerFactory,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { McpTokenBroker } from './brokering.js';
import {
  claimAttemptPrincipal,
  decideClaim,
  isUnderDirectory,
  type McpClaimCodes,
  presentedClaimCode,
} from './claim-scope.js';
import { KeyholdMcpError } from './errors.js';
import { refusalMessage } from './host-origin.js';
import { createLegacyCapabilities } from './legacy-capabilities.js';
import { createLegacyServing } from './legacy-serving.js';
import { type OutageSlot, storageUnavailableResponse } from './outage.js';
import { createRequestChecks, type Located } from './request-checks.js';
import { createRequestStateSeal } from './request-state.js';
import type { Authentication } from './resource-access.js';
import { createToolRunner, type RequestData } from './tool-calls.js';
import type { McpServedModule, ModuleTool } from './tool-module.js';

/**
 * Options of {@link createMcpEndpoint}. Validated once, at creation (`ERR_INVALID_OPTIONS`).
 */
export interface McpEndpointOptions {
  /**
   * The one resource served, as its authorization server describes it: `server.protectedResource('demo')`
   * (or `server.protectedResource('demo', { url: 'https://example.com/mcp' })`). Its URL's path is the
   * route served, its metadata is served at its `wellKnownUrl`'s path, its host and origin are the default
   * allowlists, and its `verify` is the bearer policy. Give this or `authorizationServer`.
   */
  readonly resource?: ProtectedResource;
  /**
   * Serve every tenant's resource of this authorization server at `{baseUrl}/tenant/<slug>{resourcePath}`
   * (the tenant comes from the path; an unknown one is 404). Give this or `resource`.
   */
  readonly authorizationServer?: AuthorizationServer;
  readonly serverInfo: { readonly name: string; readonly version: string };
  /** The tool modules served. Tool names must be unique across them. */
  readonly toolModules: readonly McpServedModule[];
  /** Claim codes read on every request (`Mcp-Claim-Code`, or `?claim=`). Default: none are read. */
  readonly claimCodes?: McpClaimCodes;
  /** The token broker behind `context.getToken` and yielded asks (`@keyhold/token-vault`). */
  readonly broker?: McpTokenBroker;
  /**
   * Per-request spans (`createOpenTelemetryTracing({ spanPrefix: 'keyhold.mcp.' })` of
   * `@keyhold/oauth-core/opentelemetry`): one span per HTTP request, named after its method, with the status.
   * Default: none.
   */
  readonly tracing?: RequestTracing;
  /**
   * HMAC key (at least 32 bytes) of 2026-07-28 `requestState` values and 2025-era capability ids, which
   * only brokered tools use: required with a `broker` (every instance serving one deployment needs the
   * same key), otherwise a random key per instance.
   */
  readonly requestStateSecret?: Uint8Array | string;
  /** How long a user has to authorize before the retry is refused. Default 600 (ten minutes). */
  readonly requestStateTtlSeconds?: number;
  /**
   * The spend-once store (`OnceStore` of `@keyhold/core`) where `requestState` ids are spent, as `state:<id>`.
   * Default: in memory (one instance); share one across instances.
   */
  readonly onceStore?: OnceStore;
  /** How long a 2025-era capability id is honoured. Default 86 400 (a day). */
  readonly legacyCapabilityTtlSeconds?: number;
  /**
   * `Host` values accepted (`host` or `host:port`), or `'any'` behind a proxy that checks them. Default:
   * the resource URL's host, plus the loopback names on its port when that host is loopback.
   */
  readonly allowedHosts?: readonly string[] | 'any';
  /**
   * `Origin` values accepted when one is sent, and answered with CORS headers (preflights included).
   * Default: the resource's origin (and its loopback twins).
   */
  readonly allowedOrigins?: readonly string[];
  /** How 2025-era requests are served: `'stateless'` (default) or `'reject'`. */
  readonly legacy?: 'stateless' | 'reject';
  /** Largest request body read. Default 4 194 304 (4 MiB). */
  readonly maxRequestBodyBytes?: number;
  readonly clock?: Clock;
  /** Default: silent. */
  readonly logger?: Logger;
}

/**
 * An MCP endpoint, an `Area` of `@keyhold/core`: `fetch` serves the resource path(s) for 2026-07-28 and
 * 2025-era clients, the resource's RFC 9728 metadata and CORS preflights; `ownsPath` says which paths.
 *
 * @example
 * ```ts
 * const response = await endpoint.fetch(request);
 * ```
 */
export interface McpEndpoint extends Area {
  /**
   * Serves a request to a path the endpoint owns (404 elsewhere). `info.parsedBody` is a body a framework
   * already parsed (`express.json()`); the request's own body is then not read.
   */
  fetch(request: Request, info?: FetchRequestInfo): Promise<Response>;
  /** Whether `fetch` serves this path: the resource path(s) and their metadata paths. */
  ownsPath(pathname: string): boolean;
  /** Ends open SSE responses. */
  close(): Promise<void>;
}

function jsonRpcError(
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }), {
    status,
    headers: { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers },
  });
}

/**
 * The SDK answers a POST with an SSE stream whose headers it hands back before the tools ran. The status
 * can still change until the first event is sent, so the stream is held until its first chunk (or its
 * end): by then a tool that hit a storage outage has noted it in `outage`, and the endpoint answers 503.
 * Later events stream as before.
 */
const PRIMING_EVENT = /^id: [^\n]*\n(?:retry: \d+\n)?data: \n\n$/;

function isPrimingEvent(chunk: Uint8Array): boolean {
  return chunk.byteLength < 256 && PRIMING_EVENT.test(new TextDecoder().decode(chunk));
}

async function untilOutageKnown(response: Response, outage: OutageSlot): Promise<Response> {
  if (outage.error !== undefined || response.body === null) return response;
  if (!(response.headers.get('content-type') ?? '').includes('text/event-stream')) return response;
  const reader = response.body.getReader();
  const held: Uint8Array[] = [];
  let first = await reader.read();
  // A priming event (2025-11-25) is written before the tools run: hold it and wait for the next chunk.
  while (!first.done && isPrimingEvent(first.value)) {
    held.push(first.value);
    first = await reader.read();
  }
  if (outage.error !== undefined) {
    await reader.cancel().catch(() => {});
    return response;
  }
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of held) controller.enqueue(chunk);
      if (first.done) controller.close();
      else controller.enqueue(first.value);
    },
    async pull(controller) {
      const next = await reader.read();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
  return new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

const check = optionValidators(KeyholdMcpError);

/** What the request line and headers decide: refused with a ready answer, or authenticated. */
type Admission =
  | {
      readonly ok: true;
      readonly url: URL;
      readonly tenant: string;
      readonly authentication: Authentication & { ok: true };
    }
  | { readonly ok: false; readonly response: Response };

interface RegisteredTool {
  readonly module: McpServedModule;
  readonly tool: ModuleTool;
}

function registerModules(modules: readonly McpServedModule[], needsSourcePath: boolean): RegisteredTool[] {
  if (!Array.isArray(modules))
    throw new KeyholdMcpError('ERR_INVALID_TOOL_MODULE', 'toolModules must be an array');
  const names = new Set<string>();
  const registered: RegisteredTool[] = [];
  for (const module of modules) {
    for (const field of [
      'toolModuleId',
      'displayName',
      ...(needsSourcePath ? ['sourcePath' as const] : []),
    ] as const) {
      if (typeof module?.[field] !== 'string' || module[field] === '') {
        throw new KeyholdMcpError(
          'ERR_INVALID_TOOL_MODULE',
          `a tool module needs a ${field}${field === 'sourcePath' ? ' (claim codes scope modules by it)' : ''}`,
        );
      }
    }
    for (const tool of module.tools ?? []) {
      if (typeof tool?.name !== 'string' || tool.name === '' || typeof tool.handler !== 'function') {
        throw new KeyholdMcpError(
          'ERR_INVALID_TOOL_MODULE',
          `every tool of module ${module.toolModuleId} needs a name and a handler`,
        );
      }
      if (names.has(tool.name)) {
        throw new KeyholdMcpError('ERR_INVALID_TOOL_MODULE', `the tool name ${tool.name} is used twice`);
      }
      names.add(tool.name);
      registered.push({ module, tool });
    }
  }
  return registered;
}

// DPoP (RFC 9449): browser clients send a proof, and must read the nonce a resource asks them to retry with.
const ALLOWED_HEADERS =
  'authorization, content-type, dpop, mcp-protocol-version, mcp-session-id, last-event-id, mcp-claim-code';
const EXPOSED_HEADERS = 'WWW-Authenticate, DPoP-Nonce, Mcp-Session-Id, Mcp-Protocol-Version';
const PREFLIGHT_MAX_AGE_SECONDS = 600;

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

/**
 * Creates an MCP endpoint on the MCP SDK v2 (`createMcpHandler`): one definition of the tools serves
 * 2026-07-28 clients (per-request envelope, `server/discover`) and 2025-era clients (stateless). Every
 * request is checked in this order: path, `Host` and `Origin` (403), CORS preflight (204), the resource's
 * RFC 9728 metadata, the bearer policy of `@keyhold/oauth-core` (401/403 challenges naming the metadata
 * URL and every scope the tenant requires), claim code (403/429), then served
 * by a server built for it with only the tools its claim allows. Nothing is kept between requests, so
 * instances need no sticky sessions and memory does not grow with clients.
 *
 * @example
 * ```ts
 * const endpoint = createMcpEndpoint({
 *   resource: oauth.protectedResource('demo'),
 *   serverInfo: { name: 'my-host', version: '1.0.0' },
 *   toolModules: [notes],
 * });
 * Bun.serve({ fetch: (request) => endpoint.fetch(request) });
 * ```
 */
export function createMcpEndpoint(options: McpEndpointOptions): McpEndpoint {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? silentLogger;
  const { hostOrigin, locate, authenticate } = createRequestChecks(options, logger);
  const given = options.requestStateSecret;
  const secretBytes = typeof given === 'string' ? new TextEncoder().encode(given).length : given?.length;
  if (given === undefined ? options.broker !== undefined : secretBytes === undefined || secretBytes < 32) {
    throw check.invalid('requestStateSecret must be at least 32 bytes (it is required with a broker)');
  }
  // Without a broker no requestState or capability id is ever checked by another instance: a key of this
  // instance's own is enough.
  const secret = given ?? crypto.getRandomValues(new Uint8Array(32));
  if (options.legacy !== undefined && options.legacy !== 'stateless' && options.legacy !== 'reject') {
    throw check.invalid("legacy must be 'stateless' or 'reject'");
  }
  const maxBodyBytes = check.positiveInteger(
    'maxRequestBodyBytes',
    options.maxRequestBodyBytes,
    4 * 1024 * 1024,
  );
  const stateTtlMs =
    check.positiveInteger('requestStateTtlSeconds', options.requestStateTtlSeconds, 600) * 1000;
  const capabilityTtlMs =
    check.positiveInteger('legacyCapabilityTtlSeconds', options.legacyCapabilityTtlSeconds, 86_400) * 1000;
  // What is only read while a request is served is checked here too, so a wiring mistake fails at start-up.
  const { serverInfo } = options;
  if (
    typeof serverInfo?.name !== 'string' ||
    serverInfo.name === '' ||
    typeof serverInfo.version !== 'string'
  ) {
    throw check.invalid('serverInfo must have a name and a version');
  }
  if (options.broker !== undefined && typeof options.broker?.requestToken !== 'function') {
    throw check.invalid('broker must have requestToken (a TokenBroker of @keyhold/token-vault)');
  }
  if (options.onceStore !== undefined && typeof options.onceStore?.consume !== 'function') {
    throw check.invalid('onceStore must have consume');
  }
  const { claimCodes } = options;
  if (
    claimCodes !== undefined &&
    (typeof claimCodes?.claims?.validate !== 'function' ||
      (claimCodes.attempts !== undefined && typeof claimCodes.attempts?.admit !== 'function') ||
      (claimCodes.isInScope !== undefined && typeof claimCodes.isInScope !== 'function') ||
      (claimCodes.onInvalid !== undefined &&
        claimCodes.onInvalid !== 'unscoped' &&
        claimCodes.onInvalid !== 'refuse'))
  ) {
    throw check.invalid(
      "claimCodes must have claims.validate, and attempts.admit and isInScope when given; onInvalid is 'unscoped' or 'refuse'",
    );
  }
  const tools = registerModules(options.toolModules, claimCodes !== undefined);
  const store = options.onceStore ?? createMemoryOnceStore();
  const seal = createRequestStateSeal(secret, stateTtlMs, clock, store);
  const capabilities = createLegacyCapabilities(secret, capabilityTtlMs, clock);
  const isInScope = options.claimCodes?.isInScope ?? isUnderDirectory;
  const runner = createToolRunner({
    seal,
    logger,
    ...(options.broker ? { broker: options.broker } : {}),
  });
  // The SDK hands the factory the AuthInfo object passed to its fetch, so one fresh object per request
  // keys what this request decided (principal, claim, 2025 capability).
  const perRequest = new WeakMap<AuthInfo, RequestData>();

  const factory: McpServerFactory = (ctx) => {
    const data = ctx.authInfo ? perRequest.get(ctx.authInfo) : undefined;
    // Only requests this endpoint authenticated reach the SDK; anything else is a wiring bug.
    if (data === undefined) throw new Error('an unauthenticated request reached the MCP server factory');
    const server = new McpServer(
      { name: options.serverInfo.name, version: options.serverInfo.version },
      {
        capabilities: { tools: { listChanged: false } },
        requestState: {
          verify: async (state: string, context: ServerContext) => {
            try {
              return await seal.verify(state, context);
            } catch (error) {
              // The single-use check could not reach its store: a 503, not "this state was replayed".
              if (error instanceof StorageUnavailableError) data.outage.error ??= error;
              throw error;
            }
          },
        },
      },
    );
    server.server.onerror = (error) => {
      // An outage is answered (and logged once) by the endpoint as a 503.
      if (data.outage.error !== undefined) return;
      logger.warn(
        { event: 'mcp_request_refused', reason: error.message.slice(0, 100) },
        'mcp: request refused',
      );
    };
    for (const entry of tools) {
      if (data.scopeDir !== undefined && !isInScope(data.scopeDir, entry.module.sourcePath ?? '')) continue;
      runner.register(server, entry.module, entry.tool, data, ctx.era);
    }
    return server;
  };
  const onerror = (error: Error) =>
    logger.error({ event: 'mcp_error', err: error.message }, 'mcp: request failed');
  const legacyServing =
    options.legacy === 'reject' ? undefined : createLegacyServing(factory, maxBodyBytes, onerror);
  // 2025-era traffic is routed here (as the SDK documents, with isLegacyRequest in front of a strict handler)
  // so its SSE answers can start with a priming event: the SDK's own stateless leg has no option for one.
  const sdk = createMcpHandler(factory, {
    legacy: 'reject',
    maxRequestBodySize: maxBodyBytes,
    onerror,
  });

  async function readJson(
    request: Request,
  ): Promise<{ ok: true; body: unknown } | { ok: false; response: Response }> {
    const declared = Number(request.headers.get('content-length') ?? '0');
    if (declared > maxBodyBytes) {
      return {
        ok: false,
        response: jsonRpcError(413, -32000, `Payload Too Large: the limit is ${maxBodyBytes} bytes`),
      };
    }
    const chunks: Uint8Array[] = [];
    let size = 0;
    if (request.body !== null) {
      const reader = request.body.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        size += value.byteLength;
        if (size > maxBodyBytes) {
          await reader.cancel().catch(() => {});
          return {
            ok: false,
            response: jsonRpcError(413, -32000, `Payload Too Large: the limit is ${maxBodyBytes} bytes`),
          };
        }
        chunks.push(value);
      }
    }
    const bytes = new Uint8Array(size);
    let offset = 0;
    for (const chunk of chunks) {
      bytes.set(chunk, offset);
      offset += chunk.byteLength;
    }
    try {
      return { ok: true, body: JSON.parse(new TextDecoder().decode(bytes)) };
    } catch {
      return { ok: false, response: jsonRpcError(400, -32700, 'Parse error: the body is not JSON') };
    }
  }

  // Everything decided from the request line and headers alone: what the Node entry runs before it reads
  // a byte of the body, so an unauthenticated request costs no buffering. A preflight is answered before
  // authentication (browsers send no credentials with it); metadata is public.
  async function admit(request: Request): Promise<Admission> {
    const url = new URL(request.url);
    const located = locate(url.pathname);
    if (located === undefined) {
      return { ok: false, response: jsonRpcError(404, -32000, 'Not Found') };
    }
    const refusal = hostOrigin.refusal(request);
    if (refusal !== undefined) {
      logger.warn({ event: 'mcp_host_refused', reason: refusal.reason }, 'mcp: Host or Origin refused');
      return { ok: false, response: jsonRpcError(refusal.status, -32000, refusalMessage(refusal)) };
    }
    if (request.method === 'OPTIONS') return { ok: false, response: preflight(request, located) };
    if (located.kind === 'metadata') return { ok: false, response: await metadata(request, located) };
    const authentication = await authenticate(located.resource, request);
    if (!authentication.ok) return authentication;
    return { ok: true, url, tenant: located.resource.tenant, authentication };
  }

  function tenantOf(request: Request): string {
    try {
      return locate(new URL(request.url).pathname)?.resource.tenant ?? '';
    } catch {
      return '';
    }
  }

  // A listed origin may read every answer (a challenge, a refusal, an outage included): a browser client
  // that cannot read the 401 cannot find the authorization server.
  function withCors(request: Request, response: Response): Response {
    const origin = request.headers.get('origin');
    if (origin === null || !hostOrigin.allowsOrigin(origin)) return response;
    if (response.headers.get('access-control-allow-origin') !== null) return response;
    const headers = new Headers(response.headers);
    headers.set('access-control-allow-origin', origin);
    headers.append('vary', 'Origin');
    headers.set('access-control-expose-headers', EXPOSED_HEADERS);
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
  }

  function preflight(request: Request, located: Located): Response {
    const headers: Record<string, string> = { 'cache-control': 'no-store' };
    const origin = request.headers.get('origin');
    // An unlisted origin never gets here: the Origin check refused it (403).
    if (origin !== null) {
      Object.assign(headers, {
        'access-control-allow-origin': origin,
        vary: 'Origin',
        'access-control-allow-methods': located.kind === 'metadata' ? 'GET' : 'GET, POST, DELETE',
        'access-control-allow-headers': ALLOWED_HEADERS,
        'access-control-max-age': String(PREFLIGHT_MAX_AGE_SECONDS),
        'access-control-expose-headers': EXPOSED_HEADERS,
      });
    }
    return new Response(null, { status: 204, headers });
  }

  async function metadata(request: Request, located: Located): Promise<Response> {
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return new Response(null, { status: 405, headers: { allow: 'GET, HEAD, OPTIONS' } });
    }
    const document = await located.resource.metadata();
    if (document === undefined) return jsonRpcError(404, -32000, 'Not Found: unknown tenant');
    return new Response(request.method === 'HEAD' ? null : JSON.stringify(document), {
      status: 200,
      headers: { 'content-type': 'application/json', 'cache-control': 'public, max-age=300' },
    });
  }

  async function serve(
    request: Request,
    parsedBodyOption: { parsedBody?: unknown } | undefined,
  ): Promise<Response> {
    const admission = await admit(request);
    if (!admission.ok) return admission.response;
    const response = await answer(request, admission, parsedBodyOption);
    const nonce = admission.authentication.dpopNonce;
    if (nonce === undefined) return response;
    // The client's DPoP nonce is an older step's: it moves to the current one with this answer instead of
    // meeting use_dpop_nonce once its nonce expires (RFC 9449 §9).
    const headers = new Headers(response.headers);
    headers.set('dpop-nonce', nonce);
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
  }

  async function answer(
    request: Request,
    admission: Admission & { ok: true },
    parsedBodyOption: { parsedBody?: unknown } | undefined,
  ): Promise<Response> {
    const { url, authentication } = admission;
    const { principal } = authentication;
    const claim = await decideClaim(
      options.claimCodes,
      presentedClaimCode(request, url),
      claimAttemptPrincipal(principal),
      logger,
    );
    if (claim.kind === 'refused') return claim.response;

    let parsedBody: unknown;
    if (parsedBodyOption?.parsedBody !== undefined) {
      parsedBody = parsedBodyOption.parsedBody;
    } else if (request.method === 'POST' && JSON_TYPE.test(request.headers.get('content-type') ?? '')) {
      const read = await readJson(request);
      if (!read.ok) return read.response;
      parsedBody = read.body;
    }
    const principalKey = `${principal.userId}\0${principal.clientId}`;
    const authInfo: AuthInfo = { ...authentication.authInfo };
    const outage: OutageSlot = {};
    perRequest.set(authInfo, {
      outage,
      principal,
      authInfo: authentication.authInfo,
      ...(claim.kind === 'scoped' ? { scopeDir: claim.scopeDir } : {}),
      legacyUrlElicitation: await capabilities.urlElicitation(
        request.headers.get('mcp-session-id'),
        principalKey,
      ),
    });
    const sdkOptions = { authInfo, ...(parsedBody === undefined ? {} : { parsedBody }) };
    const answered =
      legacyServing !== undefined &&
      (await isLegacyRequest(request, parsedBody, { maxRequestBodySize: maxBodyBytes }))
        ? request.method === 'POST'
          ? await legacyServing(request, sdkOptions)
          : jsonRpcError(405, -32000, 'Method not allowed.')
        : await sdk.fetch(request, sdkOptions);
    // Only a POST's stream ends with its answer; a GET stream may stay silent for as long as it is open.
    const response = request.method === 'POST' ? await untilOutageKnown(answered, outage) : answered;
    if (outage.error !== undefined) throw outage.error;
    const initialize = parsedBody as {
      method?: unknown;
      params?: { capabilities?: { elicitation?: { url?: unknown } } };
    };
    if (response.ok && initialize?.method === 'initialize') {
      const urlElicitation = initialize.params?.capabilities?.elicitation?.url !== undefined;
      const headers = new Headers(response.headers);
      headers.set('mcp-session-id', await capabilities.mint(urlElicitation, principalKey));
      return new Response(response.body, {
        status: response.status,
        statusText: response.statusText,
        headers,
      });
    }
    return response;
  }

  const endpoint: McpEndpoint = {
    ownsPath: (pathname) => locate(pathname) !== undefined,
    async fetch(request, fetchOptions) {
      // The span names the tenant; without tracing the path is matched once, in admit.
      const tenant = options.tracing === undefined ? undefined : tenantOf(request);
      const endSpan = options.tracing?.start(request.method.toLowerCase(), tenant ?? '');
      try {
        const response = withCors(request, await serve(request, fetchOptions));
        endSpan?.({ status: response.status });
        logger.debug(
          { event: 'mcp_request', tenant, method: request.method, status: response.status },
          'mcp: request served',
        );
        return response;
      } catch (error) {
        if (error instanceof StorageUnavailableError) {
          // Authentication, the claim code, a tool's broker or store, the requestState check: one 503.
          endSpan?.({ status: 503 });
          return withCors(request, storageUnavailableResponse(error, logger, request.method.toLowerCase()));
        }
        logger.error(
          { event: 'mcp_error', err: error instanceof Error ? error.message : String(error) },
          'mcp: request failed',
        );
        endSpan?.({ status: 500, error });
        return withCors(request, jsonRpcError(500, -32603, 'Internal error'));
      }
    },
    close: () => sdk.close(),
  };
  return endpoint;
}
