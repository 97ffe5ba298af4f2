import { CoreError } from '@keyhold/core';

// One encoder and one decoder for the two RFC 4648 alphabets. Plain JS, not Node's buffers nor `btoa`/`atob`:
// the same code on every runtime, no `+/=` rewriting pass, and strict decoding (`atob` skips whitespace).
const URL_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const STANDARD_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
/** Marks a character outside the alphabet in the tables below: 64 is no 6-bit value. */
const INVALID = 64;

/** Each ASCII character's 6-bit value in `alphabet`, or {@link INVALID}. */
function valuesOf(alphabet: string): Uint8Array {
  const values = new Uint8Array(128).fill(INVALID);
  for (let index = 0; index < 64; index++) values[alphabet.charCodeAt(index)] = index;
  return values;
}
const URL_VALUES = valuesOf(URL_ALPHABET);
const STANDARD_VALUES = valuesOf(STANDARD_ALPHABET);
const utf8Encoder = new TextEncoder();
const utf8Decoder = new TextDecoder();

// Characters are written as ASCII codes into one array and turned into a string by the native decoder:
// building the string a character at a time made a 2 KB vault value cost tens of microseconds.
const URL_CODES = utf8Encoder.encode(URL_ALPHABET);
const STANDARD_CODES = utf8Encoder.encode(STANDARD_ALPHABET);

function encode(bytes: Uint8Array, codes: Uint8Array): string {
  const whole = bytes.length - (bytes.length % 3);
  const rest = bytes.length - whole;
  const out = new Uint8Array((whole / 3) * 4 + (rest === 0 ? 0 : rest + 1));
  let o = 0;
  for (let i = 0; i < whole; i += 3) {
    const n = ((bytes[i] as number) << 16) | ((bytes[i + 1] as number) << 8) | (bytes[i + 2] as number);
    out[o++] = codes[n >>> 18] as number;
    out[o++] = codes[(n >>> 12) & 63] as number;
    out[o++] = codes[(n >>> 6) & 63] as number;
    out[o++] = codes[n & 63] as number;
  }
  if (rest === 1) {
    const n = (bytes[whole] as number) << 16;
    out[o++] = codes[n >>> 18] as number;
    out[o++] = codes[(n >>> 12) & 63] as number;
  } else if (rest === 2) {
    const n = ((bytes[whole] as number) << 16) | ((bytes[whole + 1] as number) << 8);
    out[o++] = codes[n >>> 18] as number;
    out[o++] = codes[(n >>> 12) & 63] as number;
    out[o++] = codes[(n >>> 6) & 63] as number;
  }
  return utf8Decoder.decode(out);
}

/**
 * Decodes the first `length` characters of `input` in the alphabet of `values`; `null` when a character is
 * outside it or the last one has stray bits. Validates while decoding: one pass, no regular expression.
 */
function decode(input: string, length: number, values: Uint8Array): Uint8Array<ArrayBuffer> | null {
  const value = (i: number): number => {
    const code = input.charCodeAt(i);
    return code < 128 ? (values[code] as number) : INVALID;
  };
  const bytes = new Uint8Array(Math.floor((length * 3) / 4));
  const whole = length - (length % 4);
  let seen = 0;
  let o = 0;
  for (let i = 0; i < whole; i += 4) {
    const a = value(i);
    const b = value(i + 1);
    const c = value(i + 2);
    const d = value(i + 3);
    seen |= a | b | c | d;
    const n = (a << 18) | (b << 12) | (c << 6) | d;
    bytes[o++] = n >>> 16;
    bytes[o++] = (n >>> 8) & 0xff;
    bytes[o++] = n & 0xff;
  }
  const rest = length - whole;
  if (rest === 0) return (seen & INVALID) === 0 ? bytes : null;
  const a = value(whole);
  const b = value(whole + 1);
  const c = rest === 3 ? value(whole + 2) : 0;
  seen |= a | b | c;
  const n = (a << 18) | (b << 12) | (c << 6);
  bytes[o++] = n >>> 16;
  if (rest === 3) bytes[o++] = (n >>> 8) & 0xff;
  // Reject non-canonical encodings (stray bits in the last character) so one value has one spelling.
  const stray = rest === 2 ? n & 0xffff : n & 0xff;
  return (seen & INVALID) === 0 && stray === 0 ? bytes : null;
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
  return encode(typeof input === 'string' ? utf8Encoder.encode(input) : input, URL_CODES);
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
  const bytes = input.length % 4 === 1 ? null : decode(input, input.length, URL_VALUES);
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
  const encoded = encode(typeof input === 'string' ? utf8Encoder.encode(input) : input, STANDARD_CODES);
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
  // Padding is the only place '=' may appear: elsewhere the alphabet table refuses it.
  const padding = input.endsWith('==') ? 2 : input.endsWith('=') ? 1 : 0;
  const bytes = input.length % 4 === 0 ? decode(input, input.length - padding, STANDARD_VALUES) : null;
  if (bytes === null) throw new CoreError('ERR_INVALID_ENCODING', 'not a canonical base64 string');
  return bytes;
}
