import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { withoutNodeBuiltins } from '../../../test-support/without-node-builtins.js';
import { sha256Base64url } from '../src/sha256.js';
import { sha256Portable } from '../src/sha256-portable.js';

const native = (bytes: Uint8Array) => new Uint8Array(createHash('sha256').update(bytes).digest());

describe('the portable SHA-256 (runtimes without node:crypto) gives the FIPS 180-4 digest', () => {
  it('matches the published test vectors', () => {
    const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
    expect(hex(sha256Portable(new Uint8Array()))).toBe(
      'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    );
    expect(hex(sha256Portable(new TextEncoder().encode('abc')))).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
    expect(
      hex(
        sha256Portable(new TextEncoder().encode('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq')),
      ),
    ).toBe('248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1');
  });

  it('matches node:crypto for every length from 0 to 200 bytes (each padding case) and for 1 MiB', () => {
    for (let length = 0; length <= 200; length++) {
      const bytes = randomBytes(length);
      expect(sha256Portable(bytes), `length ${length}`).toEqual(native(bytes));
    }
    const large = randomBytes(1 << 20);
    expect(sha256Portable(large)).toEqual(native(large));
  });
});

describe('sha256Base64url hashes the UTF-8 of a string, base64url without padding', () => {
  it('gives the same value as node:crypto, non-ASCII included', () => {
    for (const value of ['', 'secret', 'é✓😀', 'x'.repeat(1000)]) {
      expect(sha256Base64url(value)).toBe(createHash('sha256').update(value, 'utf8').digest('base64url'));
    }
  });
});

describe('sha256Base64url needs no node:crypto: without process.getBuiltinModule it hashes portably', () => {
  it('loads and gives the same digests where the runtime offers no Node built-in', async () => {
    await withoutNodeBuiltins(async () => {
      const portable = await import('../src/sha256.js');
      for (const value of ['', 'secret', 'é✓😀']) {
        expect(portable.sha256Base64url(value)).toBe(
          createHash('sha256').update(value, 'utf8').digest('base64url'),
        );
      }
    });
  });
});
