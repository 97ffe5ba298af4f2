import { KeyholdError } from '@keyhold/core';

/**
 * The codes {@link WebhookError} carries. Codes are API: they are added, never renamed.
 *
 * - `ERR_INVALID_OPTIONS`: an option failed validation at creation.
 * - `ERR_INVALID_ROUTE`: a `toolModuleId` or an `@webhook <path>` is not a valid path, or a tag carries extra text.
 * - `ERR_DUPLICATE_ROUTE`: two methods (or two modules of one `toolModuleId`) claim one path.
 * - `ERR_UNKNOWN_ROUTE`: a tag or a signature setting names a method or route that does not exist.
 * - `ERR_SOURCE_UNREADABLE`: no longer thrown. It came from `readDocumentedMethods`, which is no longer
 *   exported; discovery never threw it (a module whose source cannot be read exposes only `handle*`
 *   methods). Kept because codes are never removed.
 * - `ERR_SOURCE_UNPARSABLE`: a module's source file carries `@webhook` but is not valid TypeScript or
 *   JavaScript, so its tags cannot be told from its code (the message names the line).
 * - `ERR_PARSER_UNAVAILABLE`: no longer thrown. It meant that the optional peer `typescript` was missing;
 *   doc comments are now read without it. Kept because codes are never removed.
 */
export type WebhookErrorCode =
  | 'ERR_INVALID_OPTIONS'
  | 'ERR_INVALID_ROUTE'
  | 'ERR_DUPLICATE_ROUTE'
  | 'ERR_UNKNOWN_ROUTE'
  | 'ERR_SOURCE_UNREADABLE'
  | 'ERR_PARSER_UNAVAILABLE'
  | 'ERR_SOURCE_UNPARSABLE';

/**
 * Thrown by `@keyhold/webhook-kit` for misuse found at registration (bad options, clashing routes, invalid
 * tags). Requests never throw it: bad input is answered with a 4xx result.
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
