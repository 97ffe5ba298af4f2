// `@keyhold/mcp/node`: an MCP endpoint as a `node:http` listener (Express, Fastify and plain Node).

import type { IncomingMessage, ServerResponse } from 'node:http';
import { type Logger, optionValidators, silentLogger } from '@keyhold/core';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { type Admission, admittedFetchOptions, endpointInternals, type McpEndpoint } from './endpoint.js';
import { KeyholdMcpError } from './errors.js';
import { isWellFormedHost } from './host-origin.js';

const check = optionValidators(KeyholdMcpError);
const DEFAULT_MAX_REQUEST_BODY_BYTES = 4 * 1024 * 1024;

/**
 * What {@link toMcpNodeListener} returns: a `node:http` listener, with the body a framework already parsed
 * as the optional third argument.
 */
export type McpNodeListener = (
  req: IncomingMessage,
  res: ServerResponse,
  parsedBody?: unknown,
) => Promise<void>;

/**
 * Options of {@link toMcpNodeListener}.
 */
export interface McpNodeListenerOptions {
  /** Largest body read from the socket (413 above it). Default 4 194 304 (4 MiB). */
  readonly maxRequestBodyBytes?: number;
  /** Called when the listener itself fails (it then answers 500). */
  readonly onerror?: (error: Error) => void;
  /** Receives one `warn` line per request refused for its `Host` header. Default: silent. */
  readonly logger?: Logger;
}

/** How many Host headers a request carried (RFC 9112 §3.2: more than one is an error). */
function hostHeaderCount(rawHeaders: readonly string[]): number {
  let count = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!;
    if (name.length === 4 && name.toLowerCase() === 'host') count++;
  }
  return count;
}

function jsonRpcAnswer(
  res: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  const body = JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null });
  res.writeHead(status, {
    'content-type': 'application/json',
    'cache-control': 'no-store',
    'content-length': String(Buffer.byteLength(body)),
    connection: 'close',
    ...headers,
  });
  res.end(body);
}

// The request line and headers as a web Request without a body: enough to check path, Host, Origin and
// the bearer token before a byte of the body is read.
function headersOnlyRequest(req: IncomingMessage, host: string): Request | undefined {
  const target = req.url ?? '/';
  // Only origin-form targets (RFC 9112 §3.2.1): an absolute-form one would make the URL ambiguous.
  if (!target.startsWith('/')) return undefined;
  let url: URL;
  try {
    url = new URL(`http://${host}${target}`);
  } catch {
    return undefined;
  }
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || name.startsWith(':')) continue;
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else headers.set(name, value);
  }
  return new Request(url, { method: (req.method ?? 'GET').toUpperCase(), headers });
}

// A refusal decided before the body was read: written whole, and the connection closed after it, so a
// body still on its way is never read (RFC 9112 §9.6).
async function writeRefusal(res: ServerResponse, response: Response): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  const body = Buffer.from(await response.arrayBuffer());
  res.writeHead(response.status, {
    ...headers,
    'content-length': String(body.byteLength),
    connection: 'close',
  });
  res.end(body);
}

/**
 * Turns an endpoint into a `(req, res, parsedBody?) => Promise<void>` listener, through the SDK's Node
 * entry (responses streamed with back-pressure; the request aborted when the client goes away). A body a
 * framework already parsed (`req.body` of `express.json()`) is passed as the third argument and used as
 * it is. A `req.auth` set by other middleware is ignored: the endpoint verifies every token itself.
 *
 * A repeated or malformed `Host` is answered 421 before anything else. The path, `Host`/`Origin` and bearer
 * checks then run on the headers alone, before a byte of the body is read: a refused request (401 with its
 * challenge, 403, 404, 503) is answered with `Connection: close` and its body never read, so clients
 * without a token cannot make the server buffer bodies.
 *
 * @example
 * ```ts
 * const listener = toMcpNodeListener(endpoint);
 * http.createServer((req, res) => void listener(req, res)).listen(8787);
 * app.all('/mcp', (req, res) => listener(req, res, req.body)); // Express 5
 * router.all('/mcp', (req, res) => listener(req, res)); // under app.use('/tenant/demo', router)
 * ```
 */
export function toMcpNodeListener(
  endpoint: McpEndpoint,
  options: McpNodeListenerOptions = {},
): McpNodeListener {
  // Validated here, once: the SDK would only meet a bad limit on the first request.
  const maxRequestBodyBytes = check.positiveInteger(
    'maxRequestBodyBytes',
    options.maxRequestBodyBytes,
    DEFAULT_MAX_REQUEST_BODY_BYTES,
  );
  if (options.onerror !== undefined && typeof options.onerror !== 'function') {
    throw check.invalid('onerror must be a function');
  }
  if (options.logger !== undefined && typeof options.logger?.warn !== 'function') {
    throw check.invalid('logger must be a Logger');
  }
  const logger = options.logger ?? silentLogger;
  const internals = endpointInternals(endpoint);
  const handlerFor = (admission: Admission | undefined) =>
    toNodeHandler(
      {
        fetch: (request, handlerOptions) => {
          const parsedBody = handlerOptions?.parsedBody;
          if (admission !== undefined)
            return endpoint.fetch(request, admittedFetchOptions(admission, parsedBody));
          return endpoint.fetch(request, parsedBody === undefined ? undefined : { parsedBody });
        },
      },
      {
        maxRequestBodySize: maxRequestBodyBytes,
        ...(options.onerror === undefined ? {} : { onerror: options.onerror }),
      },
    );
  const unadmitted = handlerFor(undefined);
  return async (req, res, parsedBody) => {
    // Express strips a Router's mount prefix from req.url; the endpoint serves its full public path.
    const original = (req as { originalUrl?: unknown }).originalUrl;
    if (typeof original === 'string' && original !== req.url) (req as { url?: string }).url = original;
    // HTTP/2 (through Node's compatibility API) names the host in `:authority`, as the SDK's adapter reads it.
    const authority = (req.headers as Record<string, unknown>)[':authority'];
    const host = req.headers.host ?? (typeof authority === 'string' ? authority : undefined);
    // Two Host headers (Node keeps the first, a proxy may route on the last) or one that is no host name:
    // 421, as every other path of a guarded server answers, and never a URL built from it.
    if (hostHeaderCount(req.rawHeaders) > 1 || !isWellFormedHost(host)) {
      logger.warn(
        { event: 'mcp_host_refused', host: (host ?? '').slice(0, 255), reason: 'malformed or repeated Host' },
        'mcp: request refused: malformed or repeated Host header',
      );
      jsonRpcAnswer(res, 421, 'Misdirected Request: the Host header must be one host name');
      return;
    }
    // The SDK's adapter reads the whole body (up to the limit) before the endpoint sees the request, so the
    // checks that need no body run first: an unauthenticated request is answered without being read.
    let admission: Admission | undefined;
    if (internals !== undefined && parsedBody === undefined) {
      const probe = headersOnlyRequest(req, host);
      if (probe === undefined) {
        jsonRpcAnswer(res, 400, 'Bad Request: the request target must be a path');
        return;
      }
      try {
        admission = await internals.admit(probe);
      } catch {
        // An outage while checking: the full path below checks again and answers it (5xx, logged).
        admission = undefined;
      }
      if (admission !== undefined && !admission.ok) {
        // Through fetch, so the refusal is traced and logged like any other answer.
        await writeRefusal(res, await endpoint.fetch(probe, admittedFetchOptions(admission, undefined)));
        return;
      }
    }
    // The SDK types its own request shape; Node's `IncomingMessage` is that request, though its optional
    // fields do not line up under `exactOptionalPropertyTypes`.
    const handler = admission === undefined ? unadmitted : handlerFor(admission);
    return handler(req as Parameters<typeof handler>[0], res, parsedBody);
  };
}
