import { CoreError } from '@keyhold/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  base64Decode,
  base64Encode,
  base64urlDecode,
  base64urlDecodeToString,
  base64urlEncode,
} from '../src/base64url.js';

/**
 * Random bytes of every length from 0 to 300: `encode` spells them as Buffer's `encoding` does, and `decode`
 * gives them back.
 */
function expectRoundTripsLikeBuffer(
  encode: (bytes: Uint8Array) => string,
  decode: (text: string) => Uint8Array,
  encoding: 'base64' | 'base64url',
): void {
  for (let length = 0; length <= 300; length++) {
    const bytes = crypto.getRandomValues(new Uint8Array(length));
    const encoded = encode(bytes);
    expect(encoded).toBe(Buffer.from(bytes).toString(encoding));
    expect(decode(encoded)).toEqual(bytes);
  }
}

describe('base64url (RFC 4648 §5, unpadded)', () => {
  it.each([
    ['', ''],
    ['f', 'Zg'],
    ['fo', 'Zm8'],
    ['foo', 'Zm9v'],
    ['foob', 'Zm9vYg'],
    ['fooba', 'Zm9vYmE'],
    ['foobar', 'Zm9vYmFy'],
  ])('encodes the RFC 4648 §10 vector %j as %j', (plain, encoded) => {
    expect(base64urlEncode(plain)).toBe(encoded);
    expect(base64urlDecodeToString(encoded)).toBe(plain);
  });

  it('uses - and _ instead of + and /', () => {
    expect(base64urlEncode(new Uint8Array([251, 255]))).toBe('-_8');
    expect(Array.from(base64urlDecode('-_8'))).toEqual([251, 255]);
  });

  it('encodes a view into a larger buffer by its own bytes only', () => {
    const backing = new Uint8Array([1, 2, 3, 4]);
    expect(base64urlEncode(backing.subarray(1, 3))).toBe(base64urlEncode(new Uint8Array([2, 3])));
  });

  it.each(['Zm9v=', 'Zm+v', 'Zm/v', 'Z', 'Zm9 v', 'Zh'])('refuses %j with ERR_INVALID_ENCODING', (bad) => {
    expect(() => base64urlDecode(bad)).toThrow(CoreError);
    try {
      base64urlDecode(bad);
    } catch (error) {
      expect((error as CoreError).code).toBe('ERR_INVALID_ENCODING');
    }
  });
});

describe('base64url is plain JS, byte for byte what Node encodes', () => {
  it('round-trips every length from 0 to 300 bytes and matches Buffer for each', () => {
    expectRoundTripsLikeBuffer(base64urlEncode, base64urlDecode, 'base64url');
  });

  it('decodes non-ASCII UTF-8 and encodes strings as UTF-8', () => {
    expect(base64urlEncode('é€😀')).toBe(Buffer.from('é€😀', 'utf8').toString('base64url'));
    expect(base64urlDecodeToString(base64urlEncode('é€😀'))).toBe('é€😀');
  });
});

describe('base64 (RFC 4648 §4, standard alphabet, padded) is what Buffer encodes', () => {
  it.each([
    ['', ''],
    ['f', 'Zg=='],
    ['fo', 'Zm8='],
    ['foo', 'Zm9v'],
    ['foob', 'Zm9vYg=='],
    ['fooba', 'Zm9vYmE='],
    ['foobar', 'Zm9vYmFy'],
  ])('encodes the RFC 4648 §10 vector %j as %j', (plain, encoded) => {
    expect(base64Encode(plain)).toBe(encoded);
    expect(new TextDecoder().decode(base64Decode(encoded))).toBe(plain);
  });

  it('uses + and / instead of - and _', () => {
    expect(base64Encode(new Uint8Array([251, 255]))).toBe('+/8=');
    expect(Array.from(base64Decode('+/8='))).toEqual([251, 255]);
  });

  it('round-trips every length from 0 to 300 bytes and matches Buffer for each', () => {
    expectRoundTripsLikeBuffer(base64Encode, base64Decode, 'base64');
  });

  it('encodes strings as UTF-8 and a view by its own bytes only', () => {
    expect(base64Encode('é€😀')).toBe(Buffer.from('é€😀', 'utf8').toString('base64'));
    const backing = new Uint8Array([1, 2, 3, 4]);
    expect(base64Encode(backing.subarray(1, 3))).toBe(base64Encode(new Uint8Array([2, 3])));
  });

  it.each([
    'Zg',
    'Zm8',
    'Zg=',
    'Z===',
    'Zh==',
    'Zm9=',
    '-_8=',
    'Zm 9v',
    'Zm9v\n',
    '=Zm9',
    'Zg==Zg==',
    '====',
  ])(
    'refuses %j (unpadded, bad padding, stray bits, url alphabet, whitespace) with ERR_INVALID_ENCODING',
    (bad) => {
      expect(() => base64Decode(bad)).toThrow(expect.objectContaining({ code: 'ERR_INVALID_ENCODING' }));
    },
  );
});

describe('each decoder accepts exactly one spelling per value: what its encoder writes', () => {
  const spellings = fc.oneof(
    fc.string({
      unit: fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/-_= \n'),
      maxLength: 40,
    }),
    fc.string({ maxLength: 12 }),
    fc.uint8Array({ maxLength: 30 }).map((bytes) => Buffer.from(bytes).toString('base64')),
    fc.uint8Array({ maxLength: 30 }).map((bytes) => Buffer.from(bytes).toString('base64url')),
  );

  it.each([
    ['base64Decode', 'base64Encode', base64Decode, base64Encode],
    ['base64urlDecode', 'base64urlEncode', base64urlDecode, base64urlEncode],
  ] as const)(
    '%s either refuses a string or decodes it to bytes %s spells the same way',
    (_decoder, _encoder, decode, encode) => {
      fc.assert(
        fc.property(spellings, (text) => {
          let bytes: Uint8Array;
          try {
            bytes = decode(text);
          } catch (error) {
            expect((error as CoreError).code).toBe('ERR_INVALID_ENCODING');
            return;
          }
          expect(encode(bytes)).toBe(text);
        }),
        { numRuns: 2000 },
      );
    },
  );
});
