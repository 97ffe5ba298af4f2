import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Handler, HandlerResult, Logger } from '@keyhold/core';
import { jsonResult, silentLogger } from '@keyhold/core';
import {
  BodyAlreadyConsumedError,
  BodyTimeoutError,
  BodyTooLargeError,
  type ReadRequestOptions,
  readRequest,
} from './request.js';

/** Options of {@link createNodeListener}. */
export interface NodeListenerOptions extends ReadRequestOptions {
  /** Receives a line for every unexpected exception (never the request body). */
  logger?: Logger;
}

/**
 * Writes a {@link HandlerResult} to a `node:http` response.
 *
 * @example
 * ```ts
 * writeResult(res, { status: 204, headers: {} });
 * ```
 */
export function writeResult(response: ServerResponse, result: HandlerResult): void {
  const headers: Record<string, string | number> = { ...result.headers };
  if (result.body !== undefined) headers['content-length'] = Buffer.byteLength(result.body);
  response.writeHead(result.status, headers);
  response.end(result.body);
}

/**
 * Turns a Keyhold handler into a plain `(req, res)` listener for `http.createServer`, Express, Connect or
 * Fastify's raw mode. A body over the limit gets 413, a body not received in time 408; an exception, or a
 * result with a header Node cannot send, gets a generic 500 and a log line, and the process keeps serving.
 *
 * @example
 * ```ts
 * import { createServer } from 'node:http';
 * createServer(createNodeListener(router.handle, { logger })).listen(8787);
 * ```
 */
export function createNodeListener(
  handler: Handler,
  options: NodeListenerOptions = {},
): (request: IncomingMessage, response: ServerResponse) => void {
  const logger = options.logger ?? silentLogger;
  return (request, response) => {
    void (async () => {
      let result: HandlerResult;
      try {
        result = await handler(await readRequest(request, options));
      } catch (error) {
        if (error instanceof BodyTooLargeError) {
          result = jsonResult(
            413,
            { error: 'payload_too_large', error_description: error.message },
            { connection: 'close' },
          );
        } else if (error instanceof BodyTimeoutError) {
          result = jsonResult(
            408,
            { error: 'request_timeout', error_description: error.message },
            { connection: 'close' },
          );
        } else if (error instanceof BodyAlreadyConsumedError) {
          // A host set-up mistake, not the client's: say what to change, in the answer and in the log.
          logger.error({ method: request.method, path: request.url?.split('?', 1)[0] }, error.message);
          result = jsonResult(500, { error: 'server_error', error_description: error.message });
        } else {
          logger.error(
            { err: error, method: request.method, path: request.url?.split('?', 1)[0] },
            'unhandled error in handler',
          );
          result = jsonResult(500, { error: 'server_error', error_description: 'internal server error' });
        }
      }
      if (response.headersSent) {
        response.end();
        return;
      }
      try {
        writeResult(response, result);
      } catch (error) {
        // A header Node refuses (CR/LF, control or non-latin1 characters) must cost one 500, not the process:
        // this promise has no one to reject to.
        logger.error(
          { err: error, method: request.method, path: request.url?.split('?', 1)[0] },
          'handler result could not be written',
        );
        if (!response.headersSent) {
          writeResult(
            response,
            jsonResult(500, { error: 'server_error', error_description: 'internal server error' }),
          );
        } else {
          response.end();
        }
      }
    })();
  };
}
