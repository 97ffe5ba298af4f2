import { CoreError } from '@keyhold/core';

// One encoder and one decoder for the two RFC 4648 alphabets. Plain JS, not Node's buffers nor `btoa`/`atob`:
// the same code on every runtime, no `+/=` rewriting pass, and strict decoding (`atob` skips whitespace).
const URL_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const STANDARD_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const BASE64URL = /^[A-Za-z0-9_-]*$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
/** Each alphabet character's 6-bit value, by char code; the regexes above have already refused the rest. */
const VALUES = new Uint8Array(128);
for (let index = 0; index < 64; index++) {
  VALUES[URL_ALPHABET.charCodeAt(index)] = index;
  VALUES[STANDARD_ALPHABET.charCodeAt(index)] = index;
}
const utf8Encoder = new TextEncoder();
const utf8Decoder = new TextDecoder();

function encode(bytes: Uint8Array, alphabet: string): string {
  let out = '';
  const whole = bytes.length - (bytes.length % 3);
  for (let i = 0; i < whole; i += 3) {
    const n = ((bytes[i] as number) << 16) | ((bytes[i + 1] as number) << 8) | (bytes[i + 2] as number);
    out +=
      alphabet.charAt(n >>> 18) +
      alphabet.charAt((n >>> 12) & 63) +
      alphabet.charAt((n >>> 6) & 63) +
      alphabet.charAt(n & 63);
  }
  const rest = bytes.length - whole;
  if (rest === 1) {
    const n = (bytes[whole] as number) << 16;
    out += alphabet.charAt(n >>> 18) + alphabet.charAt((n >>> 12) & 63);
  } else if (rest === 2) {
    const n = ((bytes[whole] as number) << 16) | ((bytes[whole + 1] as number) << 8);
    out += alphabet.charAt(n >>> 18) + alphabet.charAt((n >>> 12) & 63) + alphabet.charAt((n >>> 6) & 63);
  }
  return out;
}

/** Decodes characters already checked to be of one alphabet, without padding; `null` if not canonical. */
function decode(input: string): Uint8Array<ArrayBuffer> | null {
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
  return buffered === 0 ? bytes : null;
}

/**
 * Encodes bytes or a UTF-8 string as unpadded base64url (RFC 4648 §5).
 *
 * @example
 * ```ts
 * base64urlEncode(new Uint8Array([251, 255])); // '-_8'
 * ```
 */
export function base64urlEncode(input: Uint8Array | string): string {
  return encode(typeof input === 'string' ? utf8Encoder.encode(input) : input, URL_ALPHABET);
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
  const bytes = decode(input);
  if (bytes === null) throw new CoreError('ERR_INVALID_ENCODING', 'not a canonical base64url string');
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

/**
 * Encodes bytes or a UTF-8 string as padded standard base64 (RFC 4648 §4), what Node's `toString('base64')`
 * gives: the alphabet of HTTP Basic credentials and of the token vault's stored values.
 *
 * @example
 * ```ts
 * base64Encode('user:pass'); // 'dXNlcjpwYXNz'
 * ```
 */
export function base64Encode(input: Uint8Array | string): string {
  const encoded = encode(typeof input === 'string' ? utf8Encoder.encode(input) : input, STANDARD_ALPHABET);
  return encoded.padEnd(Math.ceil(encoded.length / 4) * 4, '=');
}

/**
 * Decodes padded standard base64 strictly: a character outside the alphabet (whitespace, `-`, `_`), missing or
 * misplaced padding, or stray bits in the last character throws a {@link CoreError} `ERR_INVALID_ENCODING`.
 *
 * @example
 * ```ts
 * base64Decode('+/8='); // Uint8Array [251, 255]
 * ```
 */
export function base64Decode(input: string): Uint8Array<ArrayBuffer> {
  if (!BASE64.test(input) || input.length % 4 !== 0) {
    throw new CoreError('ERR_INVALID_ENCODING', 'not a padded base64 string');
  }
  const bytes = decode(input.replace(/=+$/, ''));
  if (bytes === null) throw new CoreError('ERR_INVALID_ENCODING', 'not a canonical base64 string');
  return bytes;
}
