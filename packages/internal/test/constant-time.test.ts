import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { constantTimeEqual, sha256Base64url } from '../src/index.js';

describe('constantTimeEqual', () => {
  it('is true for equal strings', () => {
    expect(constantTimeEqual('s3cr3t', 's3cr3t')).toBe(true);
    expect(constantTimeEqual('', '')).toBe(true);
  });

  it('is false for different strings of equal length', () => {
    expect(constantTimeEqual('s3cr3t', 's3cr3T')).toBe(false);
  });

  it('does not throw on strings of different lengths (timingSafeEqual alone would)', () => {
    expect(constantTimeEqual('short', 'a much longer value')).toBe(false);
    expect(constantTimeEqual('', 'x')).toBe(false);
  });

  it('is false when one side is a prefix of the other, or lengths differ by a multiple of 256', () => {
    expect(constantTimeEqual('secret', 'secret-and-more')).toBe(false);
    expect(constantTimeEqual('secret-and-more', 'secret')).toBe(false);
    expect(constantTimeEqual('a'.repeat(256), '')).toBe(false);
    expect(constantTimeEqual('', 'a'.repeat(256))).toBe(false);
  });

  it('is false when the shorter side ends in what would read as zero bytes', () => {
    expect(constantTimeEqual('ab', 'ab\u0000')).toBe(false);
    expect(constantTimeEqual('ab\u0000', 'ab')).toBe(false);
  });

  it('compares by UTF-8 content', () => {
    expect(constantTimeEqual('é', 'é')).toBe(true);
    expect(constantTimeEqual('é', 'e\u0301')).toBe(false);
  });
});

describe('sha256Base64url', () => {
  it('matches the SHA-256 test vector for "abc" (FIPS 180-2)', () => {
    const hex = 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad';
    expect(sha256Base64url('abc')).toBe(Buffer.from(hex, 'hex').toString('base64url'));
    expect(sha256Base64url('abc')).toBe(createHash('sha256').update('abc').digest('base64url'));
  });
});
