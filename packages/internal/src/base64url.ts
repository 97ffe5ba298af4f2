import { CoreError } from '@keyhold/core';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const BASE64URL = /^[A-Za-z0-9_-]*$/;
/** Each alphabet character's 6-bit value, by char code; the regex above has already refused the rest. */
const VALUES = new Uint8Array(128);
for (let index = 0; index < ALPHABET.length; index++) VALUES[ALPHABET.charCodeAt(index)] = index;
const utf8Encoder = new TextEncoder();
const utf8Decoder = new TextDecoder();

/**
 * Encodes bytes or a UTF-8 string as unpadded base64url (RFC 4648 §5).
 *
 * @example
 * ```ts
 * base64urlEncode(new Uint8Array([251, 255])); // '-_8'
 * ```
 */
export function base64urlEncode(input: Uint8Array | string): string {
  // Plain JS, not Node's buffers nor `btoa`: the same code on every runtime, and no `+/=` rewriting pass.
  const bytes = typeof input === 'string' ? utf8Encoder.encode(input) : input;
  let out = '';
  const whole = bytes.length - (bytes.length % 3);
  for (let i = 0; i < whole; i += 3) {
    const n = ((bytes[i] as number) << 16) | ((bytes[i + 1] as number) << 8) | (bytes[i + 2] as number);
    out +=
      ALPHABET.charAt(n >>> 18) +
      ALPHABET.charAt((n >>> 12) & 63) +
      ALPHABET.charAt((n >>> 6) & 63) +
      ALPHABET.charAt(n & 63);
  }
  const rest = bytes.length - whole;
  if (rest === 1) {
    const n = (bytes[whole] as number) << 16;
    out += ALPHABET.charAt(n >>> 18) + ALPHABET.charAt((n >>> 12) & 63);
  } else if (rest === 2) {
    const n = ((bytes[whole] as number) << 16) | ((bytes[whole + 1] as number) << 8);
    out += ALPHABET.charAt(n >>> 18) + ALPHABET.charAt((n >>> 12) & 63) + ALPHABET.charAt((n >>> 6) & 63);
  }
  return out;
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
  const bytes = new Uint8Array(Math.floor((input.length * 3) / 4));
  let bits = 0;
  let buffered = 0;
  let written = 0;
  for (let i = 0; i < input.length; i++) {
    buffered = (buffered << 6) | (VALUES[input.charCodeAt(i)] as number);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      bytes[written++] = (buffered >>> bits) & 0xff;
      buffered &= (1 << bits) - 1;
    }
  }
  // Reject non-canonical encodings (stray bits in the last character) so one value has one spelling.
  if (buffered !== 0) {
    throw new CoreError('ERR_INVALID_ENCODING', 'not a canonical base64url string');
  }
  return bytes;
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
  return utf8Decoder.decode(base64urlDecode(input));
}
