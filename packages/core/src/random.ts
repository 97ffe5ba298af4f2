import { randomBytes } from 'node:crypto';
import { CoreError } from './errors.js';
import { optionValidators } from './option-validation.js';

// Misuse by code (a bad argument) throws CoreError ERR_INVALID_OPTIONS, like every Keyhold option check.
const check = optionValidators(CoreError);

/**
 * A cryptographically random value of `byteLength` bytes, base64url-encoded: for opaque tokens, codes,
 * nonces and ids. 32 bytes (the default) give 256 bits of entropy. A length outside 16–1024 throws
 * `CoreError` `ERR_INVALID_OPTIONS`.
 *
 * @example
 * ```ts
 * const refreshToken = randomToken(); // 43 characters
 * ```
 */
export function randomToken(byteLength = 32): string {
  const length = check.integerInRange('byteLength', byteLength, 32, { min: 16, max: 1024 });
  return randomBytes(length).toString('base64url');
}
