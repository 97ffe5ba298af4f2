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
