import { CoreError } from './errors.js';

const BASE64URL = /^[A-Za-z0-9_-]*$/;

/**
 * Encodes bytes or a UTF-8 string as unpadded base64url (RFC 4648 §5).
 *
 * @example
 * ```ts
 * base64urlEncode(new Uint8Array([251, 255])); // '-_8'
 * ```
 */
export function base64urlEncode(input: Uint8Array | string): string {
  const bytes =
    typeof input === 'string'
      ? Buffer.from(input, 'utf8')
      : Buffer.from(input.buffer, input.byteOffset, input.byteLength);
  return bytes.toString('base64url');
}

/**
 * Decodes unpadded base64url strictly: any character outside the alphabet, padding, or an impossible
 * length throws a {@link CoreError} with code `ERR_INVALID_ENCODING`.
 *
 * @example
 * ```ts
 * base64urlDecode('-_8'); // Uint8Array [251, 255]
 * ```
 */
export function base64urlDecode(input: string): Uint8Array {
  if (!BASE64URL.test(input) || input.length % 4 === 1) {
    throw new CoreError('ERR_INVALID_ENCODING', 'not a base64url string');
  }
  const bytes = Buffer.from(input, 'base64url');
  // Reject non-canonical encodings (stray bits in the last character) so one value has one spelling.
  if (bytes.toString('base64url') !== input) {
    throw new CoreError('ERR_INVALID_ENCODING', 'not a canonical base64url string');
  }
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/**
 * Decodes base64url into a UTF-8 string; throws like {@link base64urlDecode}.
 *
 * @example
 * ```ts
 * base64urlDecodeToString('aGk'); // 'hi'
 * ```
 */
export function base64urlDecodeToString(input: string): string {
  return Buffer.from(base64urlDecode(input)).toString('utf8');
}
