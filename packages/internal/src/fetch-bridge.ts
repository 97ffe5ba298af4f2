import {
  type FetchRequestInfo,
  type HandlerRequest,
  type HandlerResult,
  PayloadTooLargeError,
} from '@keyhold/core';
import { jsonResult } from './results.js';

/**
 * The user a request's {@link FetchRequestInfo} names, resolving a {@link UserIdSource} function. Call it only
 * where a user is used.
 *
 * @example
 * ```ts
 * const userId = await userIdOf({ userId: () => 'user-1' });
 * ```
 */
export async function userIdOf(info: FetchRequestInfo | undefined): Promise<string | undefined> {
  const source = info?.userId;
  if (source === undefined || typeof source === 'string') return source;
  const userId = await source();
  return typeof userId === 'string' && userId !== '' ? userId : undefined;
}

const decoder = new TextDecoder();

/**
 * The body of a request to an endpoint as text, read once, at most `limitBytes` (else
 * {@link PayloadTooLargeError}). A declared `Content-Length` within the limit is read whole in one call: the
 * runtime's HTTP parser already holds the body to that length. A body without one is counted as it streams
 * and cut as soon as it goes over.
 *
 * @example
 * ```ts
 * const form = await readRequestBody(new Request('https://a.example', { method: 'POST', body: 'a=1' }), 1024);
 * ```
 */
export async function readRequestBody(request: Request, limitBytes: number): Promise<string> {
  const declaredHeader = request.headers.get('content-length');
  if (declaredHeader !== null) {
    const declared = Number(declaredHeader);
    if (Number.isSafeInteger(declared) && declared >= 0) {
      if (declared > limitBytes) throw new PayloadTooLargeError(limitBytes);
      const text = await request.text();
      // A Request built by hand may carry a header that does not match its body: the cap still holds.
      if (text.length > limitBytes) throw new PayloadTooLargeError(limitBytes);
      return text;
    }
  }
  if (request.body === null) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limitBytes) {
      await reader.cancel().catch(() => {});
      throw new PayloadTooLargeError(limitBytes);
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return decoder.decode(chunks[0]);
  const body = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return decoder.decode(body);
}

/**
 * Turns a web `Request` into the {@link HandlerRequest} Keyhold's handlers take: upper-case method, raw
 * path and query, lower-cased headers, the body as text (at most `bodyLimitBytes`, default 1 MiB, else
 * {@link PayloadTooLargeError}). A user id given as a string is copied; a {@link UserIdSource} function is
 * not called here (an endpoint that uses a user resolves it with {@link userIdOf}).
 *
 * @example
 * ```ts
 * const handlerRequest = await readHandlerRequest(request, { userId: 'user-1' });
 * ```
 */
export async function readHandlerRequest(
  request: Request,
  info: FetchRequestInfo = {},
  options: { readonly bodyLimitBytes?: number } = {},
): Promise<HandlerRequest> {
  const url = new URL(request.url);
  const headers: Record<string, string> = {};
  request.headers.forEach((value, name) => {
    headers[name] = value;
  });
  const hasBody = request.method !== 'GET' && request.method !== 'HEAD';
  return {
    method: request.method.toUpperCase(),
    path: url.pathname,
    query: url.search.startsWith('?') ? url.search.slice(1) : url.search,
    headers,
    body: hasBody ? await readRequestBody(request, options.bodyLimitBytes ?? 1024 * 1024) : '',
    ...(typeof info.userId === 'string' ? { userId: info.userId } : {}),
    ...(info.ip === undefined ? {} : { ip: info.ip }),
  };
}

/**
 * Turns a {@link HandlerResult} into a web `Response`.
 *
 * @example
 * ```ts
 * const response = toResponse({ status: 204, headers: {} });
 * ```
 */
export function toResponse(result: HandlerResult): Response {
  const nullBody = result.status === 204 || result.status === 304 || result.status < 200;
  return new Response(nullBody ? null : (result.body ?? null), {
    status: result.status,
    headers: result.headers,
  });
}

/** The 413 answer to a {@link PayloadTooLargeError}, as JSON an OAuth client can read. */
export function payloadTooLargeResponse(): Response {
  return toResponse(
    jsonResult(413, { error: 'invalid_request', error_description: 'The request body is too large.' }),
  );
}
