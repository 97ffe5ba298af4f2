import { KeyholdError, optionValidators } from '@keyhold/core';

/**
 * The codes {@link NodeAdapterError} carries. Codes are API: they are added, never renamed.
 *
 * - `ERR_INVALID_OPTIONS`: an option of `serve`, `createNodeListener`, `toNodeListener`, `guardHosts` or
 *   `readRequest` failed validation.
 * - `ERR_BODY_TIMEOUT`: the request body was not received in time ({@link BodyTimeoutError}).
 * - `ERR_BODY_ALREADY_CONSUMED`: another middleware read the body first ({@link BodyAlreadyConsumedError}).
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
 * ```
 */
export class NodeAdapterError extends KeyholdError<NodeAdapterErrorCode> {}

/**
 * The request body was not received within `bodyTimeoutMs`: thrown by `readRequest`, answered 408 by the
 * listeners.
 *
 * @example
 * ```ts
 * import { BodyTimeoutError, readRequest } from '@keyhold/adapter-node';
 * try { await readRequest(req, { bodyTimeoutMs: 5_000 }); }
 * catch (e) { if (e instanceof BodyTimeoutError) console.warn(e.code, e.timeoutMs); }
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
 * and what it left in `req.body` cannot be turned back into the body that was sent. The listeners answer
 * 500 and log this message, which names the fix.
 *
 * @example
 * ```ts
 * import { BodyAlreadyConsumedError, readRequest } from '@keyhold/adapter-node';
 * try { await readRequest(req); }
 * catch (e) { if (e instanceof BodyAlreadyConsumedError) console.error(e.message); }
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
