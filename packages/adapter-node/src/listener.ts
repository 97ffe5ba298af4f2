import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Handler, HandlerRequest, HandlerResult, Logger } from '@keyhold/core';
import {
  jsonResult,
  PayloadTooLargeError,
  StorageUnavailableError,
  silentLogger,
  storageUnavailableResult,
} from '@keyhold/core';
import { BodyAlreadyConsumedError, BodyTimeoutError } from './errors.js';
import {
  type CheckedReadRequestOptions,
  checkReadRequestOptions,
  type ReadRequestOptions,
  readCheckedRequest,
} from './request.js';
import { writeResult } from './write-result.js';

/** Options of {@link createNodeListener}. */
export interface NodeListenerOptions extends ReadRequestOptions {
  /** Receives a line for every unexpected exception (never the request body). */
  logger?: Logger;
}

/**
 * Turns a Keyhold handler into a plain `(req, res)` listener for `http.createServer`, Express, Connect or
 * Fastify's raw mode. A body over the limit gets 413, a body not received in time 408; a storage outage
 * (`StorageUnavailableError` of `@keyhold/core`, from the handler or `resolveUserId`) gets 503 with
 * `Retry-After` and a warn line naming the component; any other exception, or a result with a header Node
 * cannot send, gets a generic 500 and a log line, and the process keeps serving.
 * The options are checked here, once: a bad one throws `NodeAdapterError` `ERR_INVALID_OPTIONS`.
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
  return listenerFor((input) => handler(input), checkNodeListenerOptions(options));
}

/** {@link NodeListenerOptions} once checked, with the defaults filled in. */
export interface CheckedNodeListenerOptions extends CheckedReadRequestOptions {
  readonly logger: Logger;
}

/** Checks {@link NodeListenerOptions} once, when a listener is created (`NodeAdapterError` `ERR_INVALID_OPTIONS`). */
export function checkNodeListenerOptions(options: NodeListenerOptions): CheckedNodeListenerOptions {
  return { ...checkReadRequestOptions(options), logger: options.logger ?? silentLogger };
}

/**
 * The listener behind {@link createNodeListener} and `toNodeListener`: reads the request with checked
 * options, runs `handle` (which also sees the Node request and response, for a handler that streams its
 * answer itself) and writes its result unless the response was already sent.
 */
export function listenerFor(
  handle: (
    input: HandlerRequest,
    request: IncomingMessage,
    response: ServerResponse,
  ) => Promise<HandlerResult>,
  options: CheckedNodeListenerOptions,
): (request: IncomingMessage, response: ServerResponse) => void {
  const logger = options.logger;
  return (request, response) => {
    void (async () => {
      let result: HandlerResult;
      try {
        result = await handle(await readCheckedRequest(request, options), request, response);
      } catch (error) {
        if (error instanceof PayloadTooLargeError) {
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
        } else if (error instanceof StorageUnavailableError) {
          // The last resort for an outage no handler answered (a host route, `resolveUserId`): the same
          // 503 + Retry-After every Keyhold edge gives, never a 500 with a stack.
          logger.warn(
            {
              event: 'storage_unavailable',
              component: error.component,
              method: request.method,
              path: request.url?.split('?', 1)[0],
            },
            'storage unavailable: answered 503',
          );
          result = storageUnavailableResult(error);
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
