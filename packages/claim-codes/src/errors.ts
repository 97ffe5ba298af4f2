import { KeyholdError } from '@keyhold/core';

/**
 * The codes {@link ClaimCodesError} carries. Codes are API: they are added, never renamed.
 *
 * - `ERR_INVALID_OPTIONS`: a factory was given options that fail validation.
 * - `ERR_INVALID_SCOPE`: the scope directory does not exist, cannot be resolved or is not a directory.
 * - `ERR_INVALID_TTL`: the lifetime is not a whole number of seconds between 1 and the configured maximum.
 * - `ERR_INVALID_LABEL`: the label is too long or contains control characters.
 * - `ERR_CODE_COLLISION`: no unused code was found after several attempts (practically unreachable).
 * - `ERR_STORE_CORRUPT`: the claim file is not valid JSON or not a claim file; it is never replaced.
 * - `ERR_STORE_UNREADABLE`: the claim file or its directory cannot be read or written (permissions, I/O).
 * - `ERR_STORE_LOCKED`: the claim file lock could not be taken within the configured time.
 * - `ERR_INVALID_TOOL_MODULE`: a tool module or tool is malformed, or two tools share a name.
 */
export type ClaimCodesErrorCode =
  | 'ERR_INVALID_OPTIONS'
  | 'ERR_INVALID_SCOPE'
  | 'ERR_INVALID_TTL'
  | 'ERR_INVALID_LABEL'
  | 'ERR_CODE_COLLISION'
  | 'ERR_STORE_CORRUPT'
  | 'ERR_STORE_UNREADABLE'
  | 'ERR_STORE_LOCKED'
  | 'ERR_INVALID_TOOL_MODULE';

/**
 * The one error class of `@keyhold/claim-codes`: thrown for misuse (bad options or arguments) and for
 * storage outages (a corrupt or unreadable claim file, a lock that cannot be taken). Outcomes a caller
 * branches on (a code that is valid, expired, unknown or malformed) are results, never errors.
 *
 * @example
 * ```ts
 * try {
 *   await claims.list();
 * } catch (error) {
 *   if (error instanceof ClaimCodesError && error.code === 'ERR_STORE_CORRUPT') console.error(error.message);
 * }
 * ```
 */
export class ClaimCodesError extends KeyholdError<ClaimCodesErrorCode> {}
