/**
 * The base of every error class in Keyhold. Each package extends it once with its own string-literal
 * `code` union, so `switch (err.code)` narrows. Codes are API: they are added, never renamed.
 *
 * @example
 * ```ts
 * type VaultErrorCode = 'ERR_DECRYPT_FAILED' | 'ERR_UNKNOWN_KEY';
 * class VaultError extends KeyholdError<VaultErrorCode> {}
 * throw new VaultError('ERR_UNKNOWN_KEY', 'no key with id k2');
 * ```
 */
export class KeyholdError<Code extends string = string> extends Error {
  /** A stable machine-readable code. */
  readonly code: Code;

  constructor(code: Code, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = new.target.name;
  }
}

/** The codes {@link CoreError} carries. */
export type CoreErrorCode = 'ERR_INVALID_OPTIONS' | 'ERR_INVALID_ENCODING' | 'ERR_PAYLOAD_TOO_LARGE';

/**
 * Errors raised by `@keyhold/core` itself: options that fail validation at creation, undecodable input
 * passed to a decoder by code (wire input is answered with a result instead), and a request body over its
 * limit ({@link PayloadTooLargeError}).
 *
 * @example
 * ```ts
 * try { base64urlDecode('%%%'); } catch (e) { if (e instanceof CoreError) e.code; }
 * ```
 */
export class CoreError extends KeyholdError<CoreErrorCode> {}

/**
 * A request body larger than the limit: thrown by `readHandlerRequest` here and by `@keyhold/adapter-node`'s
 * `readRequest`, and answered 413 by whoever reads the body. One class for the one condition, whichever
 * runtime read the body.
 *
 * @example
 * ```ts
 * try { await readHandlerRequest(request, {}, { bodyLimitBytes: 1024 }); }
 * catch (e) { if (e instanceof PayloadTooLargeError) console.warn(e.code, e.limitBytes); }
 * ```
 */
export class PayloadTooLargeError extends CoreError {
  declare readonly code: 'ERR_PAYLOAD_TOO_LARGE';
  /** The limit the body went over, in bytes. */
  readonly limitBytes: number;

  constructor(limitBytes: number) {
    super('ERR_PAYLOAD_TOO_LARGE', `the request body is larger than ${limitBytes} bytes`);
    this.limitBytes = limitBytes;
  }
}

/**
 * A store (a database, a cache) that cannot answer right now: refused, reset, timed out or shutting down.
 * Stores throw it instead of the driver's error so every edge answers the same way: **503** with
 * `Retry-After` (`temporarily_unavailable` on OAuth endpoints, a JSON-RPC error at MCP), never a 500 and
 * never a hang. `component` names what failed (`postgres`, `sqlite`, `redis:limiter`, `redis:lock`, …) for
 * the log line; it is never a secret and never the driver's message.
 *
 * @example
 * ```ts
 * const error = new StorageUnavailableError('postgres', { retryAfterSeconds: 2 });
 * console.warn(error.code, error.component, error.retryAfterSeconds); // ERR_STORAGE_UNAVAILABLE postgres 2
 * ```
 */
export class StorageUnavailableError extends KeyholdError<'ERR_STORAGE_UNAVAILABLE'> {
  /** What failed, for logs and readiness: `postgres`, `sqlite`, `redis:limiter`, `redis:lock`, … */
  readonly component: string;
  /** What the 503 tells clients to wait, in seconds. */
  readonly retryAfterSeconds: number;

  constructor(component: string, options?: { cause?: unknown; retryAfterSeconds?: number }) {
    super('ERR_STORAGE_UNAVAILABLE', `${component} is unavailable`, {
      ...(options?.cause === undefined ? {} : { cause: options.cause }),
    });
    this.component = component;
    this.retryAfterSeconds = options?.retryAfterSeconds ?? 1;
  }
}
