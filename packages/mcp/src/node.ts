// `@keyhold/mcp/node`: an MCP endpoint as a `node:http` listener (Express, Fastify and plain Node).
import { type NodeMcpRequestHandler, toNodeHandler } from '@modelcontextprotocol/node';
import type { McpEndpoint } from './endpoint.js';

/**
 * Options of {@link toNodeListener}.
 */
export interface NodeListenerOptions {
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
 * const listener = toNodeListener(endpoint);
 * http.createServer((req, res) => void listener(req, res)).listen(8787);
 * app.all('/mcp', (req, res) => listener(req, res, req.body)); // Express 5
 * router.all('/mcp', (req, res) => listener(req, res)); // under app.use('/tenant/demo', router)
 * ```
 */
export function toNodeListener(
  endpoint: McpEndpoint,
  options: NodeListenerOptions = {},
): NodeMcpRequestHandler {
  const handler = toNodeHandler(
    {
      fetch: (request, handlerOptions) =>
        endpoint.fetch(
          request,
          handlerOptions?.parsedBody === undefined ? undefined : { parsedBody: handlerOptions.parsedBody },
        ),
    },
    {
      ...(options.maxRequestBodyBytes === undefined
        ? {}
        : { maxRequestBodySize: options.maxRequestBodyBytes }),
      ...(options.onerror === undefined ? {} : { onerror: options.onerror }),
    },
  );
  return (req, res, parsedBody) => {
    // Express strips a Router's mount prefix from req.url; the endpoint serves its full public path.
    const original = (req as { originalUrl?: unknown }).originalUrl;
    if (typeof original === 'string' && original !== req.url) (req as { url?: string }).url = original;
    return handler(req, res, parsedBody);
  };
}
