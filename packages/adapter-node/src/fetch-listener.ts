import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type { FetchHandler, HandlerRequest } from '@keyhold/core';
import { jsonResult } from '@keyhold/core';
import { checkNodeListenerOptions, listenerFor, type NodeListenerOptions } from './listener.js';

/**
 * Writes a web `Response` to a Node response: status, every header (each `Set-Cookie` separately), and
 * the body streamed with back-pressure (an SSE stream stays a stream; a slow reader slows the producer).
 */
export async function writeResponse(response: ServerResponse, answer: Response): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  answer.headers.forEach((value, name) => {
    if (name !== 'set-cookie') headers[name] = value;
  });
  const cookies = answer.headers.getSetCookie();
  if (cookies.length > 0) headers['set-cookie'] = cookies;
  response.writeHead(answer.status, headers);
  if (answer.body === null) {
    response.end();
    return;
  }
  // Send the status and headers now: a stream (SSE) may not produce its first chunk for a while.
  response.flushHeaders();
  await pipeline(Readable.fromWeb(answer.body as WebReadableStream), response);
}

function toWebRequest(request: IncomingMessage, input: HandlerRequest): Request {
  const encrypted = (request.socket as { encrypted?: boolean }).encrypted === true;
  const host = input.headers['host'] ?? 'localhost';
  const url = `${encrypted ? 'https' : 'http'}://${host}${input.path}${input.query === '' ? '' : `?${input.query}`}`;
  const hasBody = input.method !== 'GET' && input.method !== 'HEAD';
  return new Request(url, {
    method: input.method,
    headers: input.headers,
    ...(hasBody ? { body: input.body } : {}),
  });
}

/**
 * Turns any Keyhold area's `fetch` into a `node:http` listener (plain Node, Express, Connect, Fastify's
 * raw handler). The body is read with the same limits and timeout as `createNodeListener`; a body a
 * framework parsed already (`express.json()`, `express.urlencoded()`) is used as parsed; the client
 * address (`trustProxy`) and the host's user (`resolveUserId`) reach `fetch` as its `info`. Express's
 * `req.originalUrl` is used, so a listener inside a Router under a prefix sees its full public path. The
 * options are checked here, once: a bad one throws `NodeAdapterError` `ERR_INVALID_OPTIONS`.
 *
 * @example
 * ```ts
 * http.createServer(toNodeListener(server.fetch, { resolveUserId: (req) => sessionOf(req)?.userId })).listen(8787);
 * ```
 */
export function toNodeListener(
  fetch: FetchHandler,
  options: NodeListenerOptions = {},
): (request: IncomingMessage, response: ServerResponse) => void {
  const listener = listenerFor(async (input, request, response) => {
    let webRequest: Request;
    try {
      webRequest = toWebRequest(request, input);
    } catch {
      // A Host (or method) no URL or Request can carry: the client's mistake, not a server error.
      return jsonResult(400, { error: 'invalid_request', error_description: 'malformed request target' });
    }
    const answer = await fetch(webRequest, {
      ...(input.ip === undefined ? {} : { ip: input.ip }),
      ...(input.userId === undefined ? {} : { userId: input.userId }),
    });
    await writeResponse(response, answer).catch(() => response.destroy());
    return { status: answer.status, headers: {} };
  }, checkNodeListenerOptions(options));
  return (request, response) => {
    const original = (request as { originalUrl?: unknown }).originalUrl;
    if (typeof original === 'string' && original !== request.url) request.url = original;
    // The listener writes only when reading the body or `fetch` failed (413, 408, 500); otherwise the
    // response was streamed above, and it sees the headers sent.
    listener(request, response);
  };
}
