import { randomBytes } from 'node:crypto';

/**
 * A cryptographically random value of `byteLength` bytes, base64url-encoded: for opaque tokens, codes,
 * nonces and ids. 32 bytes (the default) give 256 bits of entropy.
 *
 * @example
 * ```ts
 * const refreshToken = randomToken(); // 43 characters
 * ```
 */
export function randomToken(byteLength = 32): string {
  if (!Number.isInteger(byteLength) || byteLength < 16 || byteLength > 1024) {
    throw new RangeError('byteLength must be an integer from 16 to 1024');
  }
  return randomBytes(byteLength).toString('base64url');
}
