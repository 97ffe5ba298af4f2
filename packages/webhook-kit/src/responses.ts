import type { HandlerResult } from '@keyhold/core';
import { jsonResult, NO_STORE_HEADERS } from '@keyhold/internal';

/**
 * The `error` codes of a webhook error body. `payload_too_large` and `server_error` are also what
 * `@keyhold/adapter-node` answers when it refuses a body or catches an exception itself.
 */
export type WebhookErrorBodyCode =
  | 'invalid_request'
  | 'unauthorized'
  | 'forbidden'
  | 'invalid_signature'
  | 'not_found'
  | 'method_not_allowed'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'server_error'
  | 'temporarily_unavailable';

/**
 * The one JSON body every webhook response carries.
 *
 * - success: `{ ok: true, result?: <the method's return value> }` (result omitted when the method returns
 *   nothing), or `{ ok: true, duplicate: true }` for a delivery already accepted;
 * - error: `{ ok: false, error: <code>, error_description: <text> }`.
 *
 * @example
 * ```ts
 * const body = (await response.json()) as WebhookResponseBody;
 * if (!body.ok) console.error(body.error, body.error_description);
 * ```
 */
export type WebhookResponseBody =
  | { readonly ok: true; readonly result?: unknown; readonly duplicate?: true }
  | { readonly ok: false; readonly error: WebhookErrorBodyCode; readonly error_description: string };

/** Builds a success response; throws when the result cannot be serialised as JSON. */
export function successResult(result: unknown): HandlerResult {
  return jsonResult(200, result === undefined ? { ok: true } : { ok: true, result }, NO_STORE_HEADERS);
}

/** The answer to a delivery whose id was already accepted: success, so the sender stops retrying. */
export function duplicateResult(): HandlerResult {
  return jsonResult(200, { ok: true, duplicate: true }, NO_STORE_HEADERS);
}

/** Builds an error response in the one documented shape. */
export function errorResult(
  status: number,
  error: WebhookErrorBodyCode,
  description: string,
  headers: Readonly<Record<string, string>> = {},
): HandlerResult {
  return jsonResult(
    status,
    { ok: false, error, error_description: description },
    { ...NO_STORE_HEADERS, ...headers },
  );
}
