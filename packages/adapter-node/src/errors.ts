import { KeyholdError } from '@keyhold/core';
import { optionValidators } from '@keyhold/internal';

/**
 * The codes {@link NodeAdapterError} carries. Codes are API: they are added, never renamed.
 *
 * - `ERR_INVALID_OPTIONS`: an option of `toNodeListener` or `serve` failed validation.
 * - `ERR_BODY_TIMEOUT`: the request body was not received within `bodyTimeoutMs`; an area's read of the body
 *   fails with it, and `toNodeListener` answers 408.
 * - `ERR_BODY_ALREADY_CONSUMED`: another middleware read the body first and left nothing Keyhold can rebuild;
 *   `toNodeListener` answers 500 and logs the message, which names the fix.
 *
 * A body over its limit is `@keyhold/core`'s `PayloadTooLargeError` (`ERR_PAYLOAD_TOO_LARGE`), the same
 * error every Keyhold runtime throws for it.
 */
export type NodeAdapterErrorCode = 'ERR_INVALID_OPTIONS' | 'ERR_BODY_TIMEOUT' | 'ERR_BODY_ALREADY_CONSUMED';

/**
 * Errors raised by `@keyhold/adapter-node`: bad options (thrown at creation) and the request-body failures
 * its listeners answer themselves (408, 500). One `instanceof` catches them all; `code` says which.
 *
 * @example
 * ```ts
 * import { NodeAdapterError, serve } from '@keyhold/adapter-node';
 * try { await serve(() => {}, { headersTimeoutMs: 0 }); }
 * catch (e) { if (e instanceof NodeAdapterError && e.code === 'ERR_INVALID_OPTIONS') console.error(e.message); }
 *
 * // In an area under toNodeListener: undefined for a body that did not arrive within bodyTimeoutMs.
 * async function bodyOf(request: Request): Promise<string | undefined> {
 *   try { return await request.text(); }
 *   catch (e) { if (e instanceof NodeAdapterError && e.code === 'ERR_BODY_TIMEOUT') return undefined; throw e; }
 * }
 * ```
 */
export class NodeAdapterError extends KeyholdError<NodeAdapterErrorCode> {}

/**
 * The request body was not received within `bodyTimeoutMs`: the error an area's read of the body fails with
 * under `toNodeListener`, which then answers 408. Internal: hosts branch on `NodeAdapterError`'s `code`.
 *
 * @example
 * ```ts
 * const error = new BodyTimeoutError(30_000);
 * error.code; // 'ERR_BODY_TIMEOUT'
 * ```
 */
export class BodyTimeoutError extends NodeAdapterError {
  declare readonly code: 'ERR_BODY_TIMEOUT';
  /** The time the body was allowed, in ms. */
  readonly timeoutMs: number;

  constructor(timeoutMs: number) {
    super('ERR_BODY_TIMEOUT', `request body not received within ${timeoutMs} ms`);
    this.timeoutMs = timeoutMs;
  }
}

/**
 * The request's body was read by something before Keyhold (a global `express.json()` or `urlencoded()`)
 * and what it left in `req.body` cannot be turned back into the body that was sent (a nested "qs" parse of
 * `urlencoded({ extended: true })`, or no `req.body` at all). `toNodeListener` answers 500 and logs this
 * message, which names the fix. Internal: hosts branch on `NodeAdapterError`'s `code`.
 *
 * @example
 * ```ts
 * const error = new BodyAlreadyConsumedError('req.body is not set');
 * console.error(error.code, error.message);
 * ```
 */
export class BodyAlreadyConsumedError extends NodeAdapterError {
  declare readonly code: 'ERR_BODY_ALREADY_CONSUMED';

  constructor(detail: string) {
    super(
      'ERR_BODY_ALREADY_CONSUMED',
      `the request body was already read by another middleware (${detail}); mount Keyhold before global body parsers such as express.json() and express.urlencoded(), or leave req.body as the parser's plain object`,
    );
  }
}

/** The option checks of this package: a bad option throws {@link NodeAdapterError} `ERR_INVALID_OPTIONS`. */
export const optionCheck: ReturnType<typeof optionValidators> = optionValidators(NodeAdapterError);
