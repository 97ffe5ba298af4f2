import { CoreError } from '@keyhold/core';
import { base64urlEncode } from './base64url.js';
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
  // WebCrypto's CSPRNG, global on every runtime Keyhold supports; 1024 bytes is far below its 65,536 limit.
  return base64urlEncode(crypto.getRandomValues(new Uint8Array(length)));
}
