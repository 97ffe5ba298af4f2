import { KeyholdError } from '@keyhold/core';

/**
 * The codes {@link WebhookError} carries. Codes are API: they are added, never renamed.
 *
 * - `ERR_INVALID_OPTIONS`: an option failed validation at creation.
 * - `ERR_INVALID_ROUTE`: a module name or an `@webhook <path>` is not a valid path, or a tag carries extra text.
 * - `ERR_DUPLICATE_ROUTE`: two methods claim one path.
 * - `ERR_UNKNOWN_ROUTE`: a tag or a signature setting names a method or route that does not exist.
 * - `ERR_SOURCE_UNREADABLE`: a module's source file could not be read.
 * - `ERR_PARSER_UNAVAILABLE`: a module names a source file but the optional peer `typescript` is not installed.
 */
export type WebhookErrorCode =
  | 'ERR_INVALID_OPTIONS'
  | 'ERR_INVALID_ROUTE'
  | 'ERR_DUPLICATE_ROUTE'
  | 'ERR_UNKNOWN_ROUTE'
  | 'ERR_SOURCE_UNREADABLE'
  | 'ERR_PARSER_UNAVAILABLE';

/**
 * Thrown by `@keyhold/webhook-kit` for misuse found at registration (bad options, clashing routes, an
 * unreadable source file). Requests never throw it: bad input is answered with a 4xx result.
 *
 * @example
 * ```ts
 * try {
 *   createWebhookHandler({ modules });
 * } catch (error) {
 *   if (error instanceof WebhookError && error.code === 'ERR_DUPLICATE_ROUTE') console.error(error.message);
 * }
 * ```
 */
export class WebhookError extends KeyholdError<WebhookErrorCode> {}
