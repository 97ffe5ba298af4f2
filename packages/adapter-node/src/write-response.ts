import type { ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';

/**
 * Writes a web `Response` to a Node response, once: status, every header (each `Set-Cookie` separately), and
 * the body streamed with back-pressure (an SSE stream stays a stream; a slow reader slows the producer).
 * `closeConnection` adds `Connection: close` (the request's body was left unread). A header Node refuses
 * throws before anything is sent; a client that goes away mid-stream cancels the body.
 */
export async function writeAnswer(
  response: ServerResponse,
  answer: Response,
  closeConnection: boolean,
): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  answer.headers.forEach((value, name) => {
    if (name !== 'set-cookie') headers[name] = value;
  });
  const cookies = answer.headers.getSetCookie();
  if (cookies.length > 0) headers['set-cookie'] = cookies;
  if (closeConnection) headers['connection'] = 'close';
  response.writeHead(answer.status, headers);
  if (answer.body === null) {
    response.end();
    return;
  }
  // Send the status and headers now: a stream (SSE) may not produce its first chunk for a while.
  response.flushHeaders();
  try {
    await pipeline(Readable.fromWeb(answer.body as WebReadableStream), response);
  } catch {
    // The client went away or the body failed mid-stream: nothing more can be said on this response.
    response.destroy();
  }
}

/**
 * Writes a web `Response` to a Node response: status, every header (each `Set-Cookie` separately), and
 * the body streamed with back-pressure.
 *
 * @example
 * ```ts
 * await writeResponse(res, new Response('ok'));
 * ```
 */
export function writeResponse(response: ServerResponse, answer: Response): Promise<void> {
  return writeAnswer(response, answer, false);
}
