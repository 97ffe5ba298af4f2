import type { HandlerResult, StorageUnavailableError } from '@keyhold/core';

/** Headers that keep a response out of every cache; OAuth responses carry them (RFC 6749 §5.1). */
export const NO_STORE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'cache-control': 'no-store',
  pragma: 'no-cache',
});

/**
 * A JSON response. `undefined` members are dropped by `JSON.stringify`, so optional fields are omitted.
 *
 * @example
 * ```ts
 * return jsonResult(200, { active: false }, NO_STORE_HEADERS);
 * ```
 */
export function jsonResult(
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = {},
): HandlerResult {
  return {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
    body: JSON.stringify(body),
  };
}

/**
 * An HTML response that may not be framed by another site and is not cached.
 *
 * @example
 * ```ts
 * return htmlResult(200, `<p>${escapeHtml(userName)}</p>`);
 * ```
 */
export function htmlResult(
  status: number,
  html: string,
  headers: Readonly<Record<string, string>> = {},
): HandlerResult {
  return {
    status,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'x-frame-options': 'DENY',
      'content-security-policy':
        "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
      'referrer-policy': 'no-referrer',
      ...headers,
    },
    body: html,
  };
}

/**
 * A `302 Found` redirect that is not cached.
 *
 * @example
 * ```ts
 * return redirectResult('https://client.example/cb?code=…');
 * ```
 */
export function redirectResult(
  location: string,
  headers: Readonly<Record<string, string>> = {},
): HandlerResult {
  return { status: 302, headers: { location, 'cache-control': 'no-store', ...headers } };
}

/**
 * A plain-text response.
 *
 * @example
 * ```ts
 * return textResult(404, 'not found');
 * ```
 */
export function textResult(
  status: number,
  text: string,
  headers: Readonly<Record<string, string>> = {},
): HandlerResult {
  return { status, headers: { 'content-type': 'text/plain; charset=utf-8', ...headers }, body: text };
}

/**
 * The one answer to a {@link StorageUnavailableError}: 503, `Retry-After`, and OAuth's
 * `temporarily_unavailable` JSON (RFC 6749 §4.1.2.1), never cached.
 *
 * @example
 * ```ts
 * function answerOutage(error: unknown): HandlerResult {
 *   if (error instanceof StorageUnavailableError) return storageUnavailableResult(error);
 *   throw error;
 * }
 * ```
 */
export function storageUnavailableResult(error: StorageUnavailableError): HandlerResult {
  return jsonResult(
    503,
    { error: 'temporarily_unavailable', error_description: 'the service is temporarily unavailable' },
    { ...NO_STORE_HEADERS, 'retry-after': String(error.retryAfterSeconds) },
  );
}
