import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Area, FetchHandler, FetchRequestInfo, HandlerResult, Logger, RawHandler } from '@keyhold/core';
import { PayloadTooLargeError, rawHandlerOf, StorageUnavailableError, silentLogger } from '@keyhold/core';
import { jsonResult, storageUnavailableResult } from '@keyhold/internal';
import { clientIp, type TrustProxy } from './client-ip.js';
import { BodyAlreadyConsumedError, BodyTimeoutError, optionCheck } from './errors.js';
import { hostHeaderCount, isWellFormedHost } from './host-header.js';
import { type NodeRawRequest, toRawRequest } from './raw-request.js';
import { type ConvertedRequest, toWebRequest } from './web-request.js';
import { writeAnswer } from './write-response.js';
import { writeResult } from './write-result.js';

/** Options of {@link toNodeListener}. Checked once, when the listener is created. */
export interface ToNodeListenerOptions {
  /**
   * Time allowed to receive the whole request body, from the moment the request arrives (default 30 000 ms).
   * A slower body errors the stream the area reads, and the answer is 408 with `Connection: close`. Body
   * size limits are the areas' own.
   */
  bodyTimeoutMs?: number;
  /**
   * Whether to believe `X-Forwarded-For` for `info.ip`. `false` (default) uses the socket address. `true`
   * trusts every hop; a function trusts the hops for which it returns true (your load balancer's range), and
   * the client is the first untrusted address from the right.
   */
  trustProxy?: TrustProxy;
  /**
   * The user of the host's session for a request (reads its session cookie, say). Called only when the area
   * asks for the user (authorize, consent, the broker's connect step), at most once per request, so a token
   * request never pays for a session lookup.
   */
  userId?: (request: IncomingMessage) => string | undefined | Promise<string | undefined>;
  /** Receives a line for every unexpected exception (never the request body) and every refused Host. */
  logger?: Logger;
}

/**
 * What {@link toNodeListener} returns: a `node:http` request listener that is also Express/Connect
 * middleware (`next` given: a path the area does not own goes on to the app's own routes).
 */
export type NodeMiddleware = (
  request: IncomingMessage,
  response: ServerResponse,
  next?: (error?: unknown) => void,
) => void;

const DEFAULT_BODY_TIMEOUT_MS = 30_000;

/**
 * The largest declared body left unread (refused on its headers or its length) that Node reads and throws
 * away after the answer, the connection kept: closing with the body still arriving resets the connection,
 * and the client loses the answer it has not read yet (no lingering close in Node). A larger body, one of
 * unknown length, one begun, or one still incomplete after `bodyTimeoutMs` closes the connection.
 */
const DISCARD_LIMIT_BYTES = 2 * 1024 * 1024;

/** Whether an unread body, never begun, is small enough for Node to read and discard after the answer. */
function discardable(request: IncomingMessage, arrivedMs: number, bodyTimeoutMs: number): boolean {
  const declared = Number(request.headers['content-length']);
  return (
    request.headers['transfer-encoding'] === undefined &&
    Number.isSafeInteger(declared) &&
    declared <= DISCARD_LIMIT_BYTES &&
    Date.now() - arrivedMs < bodyTimeoutMs
  );
}

function checkedOptions(options: ToNodeListenerOptions) {
  if (typeof options !== 'object' || options === null) throw optionCheck.invalid('options must be an object');
  const trustProxy = options.trustProxy ?? false;
  if (typeof trustProxy !== 'boolean' && typeof trustProxy !== 'function') {
    throw optionCheck.invalid('trustProxy must be a boolean or a function of the address');
  }
  if (options.userId !== undefined && typeof options.userId !== 'function') {
    throw optionCheck.invalid('userId must be a function of the request');
  }
  const logger = options.logger ?? silentLogger;
  if (typeof logger?.warn !== 'function' || typeof logger.error !== 'function') {
    throw optionCheck.invalid('logger must be a Logger');
  }
  return {
    bodyTimeoutMs: optionCheck.positiveInteger(
      'bodyTimeoutMs',
      options.bodyTimeoutMs,
      DEFAULT_BODY_TIMEOUT_MS,
    ),
    trustProxy,
    userId: options.userId,
    logger,
  };
}

function targetOf(target: Area | FetchHandler): {
  fetch: FetchHandler;
  ownsPath?: (path: string) => boolean;
} {
  if (typeof target === 'function') return { fetch: target };
  if (typeof target?.fetch !== 'function' || typeof target.ownsPath !== 'function') {
    throw optionCheck.invalid('toNodeListener() takes an area ({ fetch, ownsPath }) or a fetch function');
  }
  return { fetch: (request, info) => target.fetch(request, info), ownsPath: (path) => target.ownsPath(path) };
}

const INTERNAL_ERROR = (): HandlerResult =>
  jsonResult(500, { error: 'server_error', error_description: 'internal server error' });

/**
 * Serves a Keyhold area (`{ fetch, ownsPath }`, from `compose(...)` of `@keyhold/core` or any one area) or a
 * bare `fetch` on Node: `http.createServer(...)`, Express, Connect, or Fastify's raw request and response.
 *
 * Each request is converted to a web `Request` once and the `Response` written back once: streamed with
 * back-pressure (SSE stays a stream), every `Set-Cookie` kept. The request body is streamed too, so an area
 * that refuses on headers alone (the MCP endpoint's 401) answers before the body is read, and the connection
 * is then closed instead of draining it. A body Express already parsed (`express.json()`,
 * `express.urlencoded()`) reaches the area as `info.parsedBody` and as the request body re-encoded;
 * `req.originalUrl` is honoured, so a mount under a prefix sees its full public path.
 *
 * As middleware (`next` given) a request whose path the area does not own goes to `next()` untouched, so
 * the app's routes before and after the mount keep working; without `next`, or for a bare `fetch`, every
 * request is answered. A repeated or malformed `Host` is 421. A throw from `fetch` is 503 + `Retry-After`
 * for `StorageUnavailableError` of `@keyhold/core`, otherwise a generic 500 with an error log line.
 * A bad option throws `NodeAdapterError` `ERR_INVALID_OPTIONS` here, never per request.
 *
 * @example
 * ```ts
 * import { createServer } from 'node:http';
 * import { toNodeListener } from '@keyhold/adapter-node';
 * import { compose } from '@keyhold/core';
 * import type { Area } from '@keyhold/core';
 *
 * declare const server: Area, endpoint: Area;
 * createServer(toNodeListener(compose(server, endpoint), { trustProxy: false })).listen(8787);
 * ```
 */
export function toNodeListener(
  target: Area | FetchHandler,
  options: ToNodeListenerOptions = {},
): NodeMiddleware {
  const { fetch, ownsPath } = targetOf(target);
  const { bodyTimeoutMs, trustProxy, userId, logger } = checkedOptions(options);
  const area = typeof target === 'function' ? undefined : target;

  function infoOf(request: IncomingMessage): FetchRequestInfo {
    let pending: Promise<string | undefined> | undefined;
    return {
      ...withIp(clientIp(request, trustProxy)),
      ...(userId === undefined
        ? {}
        : { userId: () => (pending ??= Promise.resolve().then(() => userId(request))) }),
    };
  }

  /**
   * An area's raw handler (`RAW_HANDLER` of `@keyhold/core`): the same code as its `fetch`, served without a web
   * `Request` or `Response`, whose streams cost on Node about as much as a whole token request.
   */
  async function answerRaw(
    request: IncomingMessage,
    response: ServerResponse,
    handler: RawHandler,
    target: { readonly url: string; readonly path: string; readonly query: string },
  ) {
    const arrivedMs = Date.now();
    const where = { method: request.method, path: target.path };
    let raw: NodeRawRequest;
    try {
      raw = toRawRequest(request, target, infoOf(request), bodyTimeoutMs);
    } catch (error) {
      // A body a framework consumed without leaving a parse: a host set-up mistake, said in the answer and log.
      const message = error instanceof Error ? error.message : String(error);
      logger.error(where, message);
      writeResult(response, jsonResult(500, { error: 'server_error', error_description: message }));
      return;
    }
    let result: HandlerResult;
    try {
      result = await handler(raw.request);
    } catch (error) {
      result = failureResult(error, where);
    } finally {
      raw.dispose();
    }
    if (response.headersSent) return;
    // A body left on the wire past DISCARD_LIMIT_BYTES is not drained (it may be endless): the connection closes.
    const final =
      raw.bodyLeftUnread() && (raw.bodyStarted() || !discardable(request, arrivedMs, bodyTimeoutMs))
        ? { ...result, headers: { ...result.headers, connection: 'close' } }
        : result;
    try {
      writeResult(response, final);
    } catch (error) {
      // A header Node refuses (control or non-latin1 characters) costs one 500, never the process.
      logger.error({ err: error, ...where }, 'response could not be written');
      if (!response.headersSent) writeResult(response, INTERNAL_ERROR());
      else response.destroy();
    }
  }

  async function answer(request: IncomingMessage, response: ServerResponse, url: string, path: string) {
    const arrivedMs = Date.now();
    const where = { method: request.method, path };
    let converted: ConvertedRequest;
    try {
      converted = toWebRequest(request, url, bodyTimeoutMs);
    } catch (error) {
      if (error instanceof BodyAlreadyConsumedError) {
        // A host set-up mistake, not the client's: say what to change, in the answer and in the log.
        logger.error(where, error.message);
        writeResult(response, jsonResult(500, { error: 'server_error', error_description: error.message }));
      } else {
        // A target or header no URL or Request can carry: the client's mistake, not a server error.
        writeResult(response, malformedTarget());
      }
      return;
    }
    const body = converted.body;
    const base = infoOf(request);
    const info: FetchRequestInfo =
      converted.parsedBody === undefined ? base : { ...base, parsedBody: converted.parsedBody };
    let result: HandlerResult | undefined;
    let fetched: Response | undefined;
    try {
      fetched = await fetch(converted.request, info);
    } catch (error) {
      result = failureResult(error, where);
    }
    if (body?.timedOut() && body.started()) {
      // The area's read of the body failed for want of it: whatever it made of that, the answer is 408.
      await fetched?.body?.cancel().catch(() => {});
      fetched = undefined;
      result = timeoutResult(new BodyTimeoutError(bodyTimeoutMs));
    }
    // A body left on the wire past DISCARD_LIMIT_BYTES is not drained (it may be endless): the connection closes.
    const closeConnection =
      body !== undefined &&
      !body.finished() &&
      (body.started() || body.timedOut() || !discardable(request, arrivedMs, bodyTimeoutMs));
    try {
      if (fetched !== undefined) {
        try {
          await writeAnswer(response, fetched, closeConnection);
          return;
        } catch (error) {
          // A header Node refuses (control or non-latin1 characters) costs one 500, never the process.
          logger.error({ err: error, ...where }, 'response could not be written');
          await fetched.body?.cancel().catch(() => {});
          result = INTERNAL_ERROR();
        }
      }
      if (response.headersSent) {
        response.destroy();
        return;
      }
      const final = result ?? INTERNAL_ERROR();
      writeResult(
        response,
        closeConnection ? { ...final, headers: { ...final.headers, connection: 'close' } } : final,
      );
    } finally {
      body?.dispose();
    }
  }

  function failureResult(error: unknown, where: { method: string | undefined; path: string }): HandlerResult {
    if (error instanceof StorageUnavailableError) {
      // The same 503 + Retry-After every Keyhold edge gives for an outage, never a 500 with a stack.
      logger.warn(
        { event: 'storage_unavailable', component: error.component, ...where },
        'storage unavailable: answered 503',
      );
      return storageUnavailableResult(error);
    }
    if (error instanceof BodyTimeoutError) return timeoutResult(error);
    if (error instanceof PayloadTooLargeError) {
      return jsonResult(
        413,
        { error: 'payload_too_large', error_description: error.message },
        { connection: 'close' },
      );
    }
    logger.error({ err: error, ...where }, 'unhandled error in fetch');
    return INTERNAL_ERROR();
  }

  return (request, response, next) => {
    // Express strips a mount prefix from req.url; the area serves full public paths.
    const original = (request as { originalUrl?: unknown }).originalUrl;
    const target = typeof original === 'string' ? original : (request.url ?? '/');
    const query = target.indexOf('?');
    const path = query === -1 ? target : target.slice(0, query);
    const owned = target.startsWith('/') && (ownsPath === undefined || ownsPath(path));
    if (next !== undefined && ownsPath !== undefined && !owned) {
      next();
      return;
    }
    // HTTP/2 (Node's compatibility API) names the host in `:authority`.
    const authority = (request.headers as Record<string, unknown>)[':authority'];
    const host = request.headers.host ?? (typeof authority === 'string' ? authority : undefined);
    if (hostHeaderCount(request.rawHeaders) > 1 || !isWellFormedHost(host)) {
      logger.warn(
        { event: 'host_refused', host: (host ?? '').slice(0, 255), path: path.slice(0, 255) },
        'request refused: the Host header must be one host name',
      );
      writeResult(response, misdirected());
      return;
    }
    if (!target.startsWith('/')) {
      // Only origin-form targets (RFC 9112 §3.2.1): an absolute-form one would make the URL ambiguous.
      writeResult(response, malformedTarget());
      return;
    }
    const encrypted = (request.socket as { encrypted?: boolean }).encrypted === true;
    const url = `${encrypted ? 'https' : 'http'}://${host}${target}`;
    const raw = area === undefined ? undefined : rawHandlerOf(area, path);
    const served =
      raw === undefined
        ? answer(request, response, url, path)
        : answerRaw(request, response, raw, {
            url,
            path,
            query: query === -1 ? '' : target.slice(query + 1),
          });
    served.catch((error: unknown) => {
      // Nothing above should throw; if it does, the connection goes, the process stays.
      logger.error({ err: error, method: request.method, path }, 'response could not be written');
      response.destroy();
    });
  };
}

function withIp(ip: string | undefined): { ip?: string } {
  return ip === undefined ? {} : { ip };
}

function timeoutResult(error: BodyTimeoutError): HandlerResult {
  return jsonResult(
    408,
    { error: 'request_timeout', error_description: error.message },
    { connection: 'close' },
  );
}

/** A target no URL can carry, or one not in origin form: the client's mistake; the connection closes. */
function malformedTarget(): HandlerResult {
  return jsonResult(
    400,
    { error: 'invalid_request', error_description: 'malformed request target' },
    { connection: 'close' },
  );
}

function misdirected(): HandlerResult {
  return jsonResult(
    421,
    {
      error: 'misdirected_request',
      error_description: 'the Host header must be one host name',
    },
    { 'cache-control': 'no-store', connection: 'close' },
  );
}
