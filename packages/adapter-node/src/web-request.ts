import type { IncomingMessage } from 'node:http';
import { BodyAlreadyConsumedError } from './errors.js';
import { preParsedBody } from './pre-parsed-body.js';
import { type StreamedBody, streamBody } from './request-body.js';

/** The web `Request` made from a Node request, and what the adapter keeps to finish the exchange. */
export interface ConvertedRequest {
  readonly request: Request;
  /** The framework's parse of the body (`express.json()`), when one was used. */
  readonly parsedBody?: unknown;
  /** The streamed body, when the request has one that was not read yet. */
  readonly body?: StreamedBody;
}

// A request with no body at all: nothing to stream, nothing left unread.
function declaresNoBody(request: IncomingMessage): boolean {
  const headers = request.headers;
  return (
    headers['transfer-encoding'] === undefined &&
    (headers['content-length'] === undefined || headers['content-length'] === '0')
  );
}

function webHeaders(request: IncomingMessage, dropLength: boolean): Headers {
  const headers = new Headers();
  const raw = request.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    // HTTP/2 pseudo-headers (Node's compatibility API) are not header fields.
    if (name.startsWith(':')) continue;
    if (dropLength) {
      const lower = name.toLowerCase();
      if (lower === 'content-length' || lower === 'transfer-encoding') continue;
    }
    headers.append(name, raw[i + 1]!);
  }
  return headers;
}

/**
 * Converts `request` to a web `Request` once: `url` is the full public URL (`https` on a TLS socket); the body
 * is streamed as the area reads it, or, when a framework already read it, its parse re-encoded (and passed on
 * as `parsedBody`). Throws {@link BodyAlreadyConsumedError} for a body that is gone and cannot be rebuilt,
 * and a `TypeError` for a target or header no `Request` can carry.
 */
export function toWebRequest(request: IncomingMessage, url: string, bodyTimeoutMs: number): ConvertedRequest {
  const method = (request.method ?? 'GET').toUpperCase();
  if (method === 'GET' || method === 'HEAD') {
    return { request: new Request(url, { method, headers: webHeaders(request, false) }) };
  }
  if (request.readableEnded) {
    // Read already, by express.json()/urlencoded() or the like: what it parsed is the body.
    const pre = preParsedBody(request);
    if (pre === undefined) {
      if (declaresNoBody(request)) {
        return { request: new Request(url, { method, headers: webHeaders(request, false) }) };
      }
      throw new BodyAlreadyConsumedError('req.body is not set');
    }
    const headers = webHeaders(request, true);
    headers.set('content-length', String(Buffer.byteLength(pre.text)));
    return {
      request: new Request(url, { method, headers, body: pre.text }),
      ...(pre.parsed === undefined ? {} : { parsedBody: pre.parsed }),
    };
  }
  if (declaresNoBody(request)) {
    return { request: new Request(url, { method, headers: webHeaders(request, false) }) };
  }
  const body = streamBody(request, bodyTimeoutMs);
  // `duplex: 'half'` is what a streamed request body requires; the DOM typings do not know it yet.
  const init = { method, headers: webHeaders(request, false), body: body.stream, duplex: 'half' };
  try {
    return { request: new Request(url, init as RequestInit), body };
  } catch (error) {
    body.dispose();
    throw error;
  }
}
