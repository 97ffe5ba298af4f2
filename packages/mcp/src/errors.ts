import { KeyholdError } from '@keyhold/core';

/**
 * The codes a {@link KeyholdMcpError} carries. Codes are API: they are added, never renamed.
 *
 * - `ERR_INVALID_OPTIONS`: an option of {@link createMcpEndpoint} is wrong (thrown at creation).
 * - `ERR_INVALID_TOOL_MODULE`: a tool module is malformed, or two tools share a name (thrown at creation).
 *
 * @example
 * ```ts
 * if (error instanceof KeyholdMcpError && error.code === 'ERR_INVALID_OPTIONS') process.exit(1);
 * ```
 */
export type KeyholdMcpErrorCode = 'ERR_INVALID_OPTIONS' | 'ERR_INVALID_TOOL_MODULE';

/**
 * The one error class of `@keyhold/mcp`, thrown for misuse only; what clients do wrong is answered on the
 * wire, never thrown.
 *
 * @example
 * ```ts
 * throw new KeyholdMcpError('ERR_INVALID_OPTIONS', 'publicUrl must be an absolute URL');
 * ```
 */
export class KeyholdMcpError extends KeyholdError<KeyholdMcpErrorCode> {}
