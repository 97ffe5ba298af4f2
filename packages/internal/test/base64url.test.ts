import { CoreError } from '@keyhold/core';
import { describe, expect, it } from 'vitest';
import { base64urlDecode, base64urlDecodeToString, base64urlEncode } from '../src/base64url.js';

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
    for (let length = 0; length <= 300; length++) {
      const bytes = crypto.getRandomValues(new Uint8Array(length));
      const encoded = base64urlEncode(bytes);
      expect(encoded).toBe(Buffer.from(bytes).toString('base64url'));
      expect(base64urlDecode(encoded)).toEqual(bytes);
    }
  });

  it('decodes non-ASCII UTF-8 and encodes strings as UTF-8', () => {
    expect(base64urlEncode('é€😀')).toBe(Buffer.from('é€😀', 'utf8').toString('base64url'));
    expect(base64urlDecodeToString(base64urlEncode('é€😀'))).toBe('é€😀');
  });
});
