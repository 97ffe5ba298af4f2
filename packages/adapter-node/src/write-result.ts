import type { ServerResponse } from 'node:http';
import type { HandlerResult } from '@keyhold/core';

/**
 * Writes a {@link HandlerResult} (an answer the adapter makes itself: 408, 421, 500, 503) to a `node:http`
 * response.
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
