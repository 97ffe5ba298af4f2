import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '@keyhold/core';

type Listener = (request: IncomingMessage, response: ServerResponse) => void;

const TIMEOUT_BODY = JSON.stringify({
  error: 'temporarily_unavailable',
  error_description: 'the service did not answer in time',
});

/**
 * Answers 503 with `Retry-After` for a request whose handler has not started its response within
 * `timeoutMs`, so no client waits forever on a store that stopped answering (every store wait is bounded
 * too; this is the last line). Only the time to the response's head counts: a response that has started,
 * such as an MCP event stream, runs as long as it needs. The late handler's own writes are then dropped,
 * so it cannot write a second response over the first (or throw trying).
 */
export function withRequestTimeout(
  listener: Listener,
  options: { timeoutMs: number; logger: Logger },
): Listener {
  const { timeoutMs, logger } = options;
  return (request, response) => {
    const timer = setTimeout(() => {
      if (response.headersSent || response.writableEnded || response.destroyed) return;
      logger.warn(
        { method: request.method, path: request.url?.split('?', 1)[0], timeoutMs },
        'request timed out: answered 503',
      );
      response.writeHead(503, {
        'content-type': 'application/json',
        'cache-control': 'no-store',
        'retry-after': '1',
        connection: 'close',
        'content-length': Buffer.byteLength(TIMEOUT_BODY),
      });
      response.end(TIMEOUT_BODY);
      silence(response);
    }, timeoutMs);
    timer.unref();
    response.once('close', () => clearTimeout(timer));
    listener(request, response);
  };
}

/** Makes the response's writing methods no-ops: it has been answered, and a late handler must not fail. */
function silence(response: ServerResponse): void {
  const target = response as unknown as Record<string, unknown>;
  target['writeHead'] = () => response;
  target['setHeader'] = () => response;
  target['removeHeader'] = () => {};
  target['flushHeaders'] = () => {};
  target['write'] = () => true;
  target['end'] = () => response;
}
