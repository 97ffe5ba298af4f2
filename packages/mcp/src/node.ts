// `@keyhold/mcp/node`: an MCP endpoint as a `node:http` listener (Express, Fastify and plain Node).

import type { IncomingMessage, ServerResponse } from 'node:http';
import { optionValidators } from '@keyhold/core';
import { toNodeHandler } from '@modelcontextprotocol/node';
import type { McpEndpoint } from './endpoint.js';
import { KeyholdMcpError } from './errors.js';

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
}

/**
 * Turns an endpoint into a `(req, res, parsedBody?) => Promise<void>` listener, through the SDK's Node
 * entry (responses streamed with back-pressure; the request aborted when the client goes away). A body a
 * framework already parsed (`req.body` of `express.json()`) is passed as the third argument and used as
 * it is. A `req.auth` set by other middleware is ignored: the endpoint verifies every token itself.
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
  const handler = toNodeHandler(
    {
      fetch: (request, handlerOptions) =>
        endpoint.fetch(
          request,
          handlerOptions?.parsedBody === undefined ? undefined : { parsedBody: handlerOptions.parsedBody },
        ),
    },
    {
      maxRequestBodySize: maxRequestBodyBytes,
      ...(options.onerror === undefined ? {} : { onerror: options.onerror }),
    },
  );
  return (req, res, parsedBody) => {
    // Express strips a Router's mount prefix from req.url; the endpoint serves its full public path.
    const original = (req as { originalUrl?: unknown }).originalUrl;
    if (typeof original === 'string' && original !== req.url) (req as { url?: string }).url = original;
    // The SDK types its own request shape; Node's `IncomingMessage` is that request, though its optional
    // fields do not line up under `exactOptionalPropertyTypes`.
    return handler(req as Parameters<typeof handler>[0], res, parsedBody);
  };
}
