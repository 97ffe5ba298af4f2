import { scryptSync } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { withoutNodeBuiltins } from '../../../test-support/without-node-builtins.js';
import { scrypt } from '../src/scrypt.js';
import type { ScryptParameters } from '../src/scrypt-portable.js';
import { scryptPortable } from '../src/scrypt-portable.js';

const utf8 = (text: string) => new TextEncoder().encode(text);
const hex = (bytes: Uint8Array) => Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
const parameters = (
  cost: number,
  blockSize: number,
  parallelization: number,
  keyLengthBytes: number,
): ScryptParameters => ({
  cost,
  blockSize,
  parallelization,
  keyLengthBytes,
  maxMemoryBytes: 128 * blockSize * (cost + 2) + 128 * blockSize * parallelization,
});

// RFC 7914 §12, all but the last vector (N = 2^20 needs 1 GiB).
const RFC_7914_VECTORS = [
  {
    password: '',
    salt: '',
    parameters: parameters(16, 1, 1, 64),
    key: '77d6576238657b203b19ca42c18a0497f16b4844e3074ae8dfdffa3fede21442fcd0069ded0948f8326a753a0fc81f17e8d3e0fb2e0d3628cf35e20c38d18906',
  },
  {
    password: 'password',
    salt: 'NaCl',
    parameters: parameters(1024, 8, 16, 64),
    key: 'fdbabe1c9d3472007856e7190d01e9fe7c6ad7cbc8237830e77376634b3731622eaf30d92e22a3886ff109279d9830dac727afb94a83ee6d8360cbdfa2cc0640',
  },
  {
    password: 'pleaseletmein',
    salt: 'SodiumChloride',
    parameters: parameters(16384, 8, 1, 64),
    key: '7023bdcb3afd7348461c06cd81fd38ebfda8fbba904f8e3ea9b543f6545da1f2d5432955613f0fcf62d49705242a9af9e61e85dc0d651e40dfcf017b45575887',
  },
];

describe('the portable scrypt (runtimes without node:crypto) gives the RFC 7914 key', () => {
  it.each(RFC_7914_VECTORS)(
    'matches the RFC 7914 §12 vector P = $password, S = $salt',
    async ({ password, salt, parameters, key }) => {
      expect(hex(await scryptPortable(utf8(password), utf8(salt), parameters))).toBe(key);
    },
  );

  it('matches node:crypto scrypt on random passwords, salts, costs, block sizes, lanes and key lengths', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ maxLength: 80 }),
        fc.uint8Array({ maxLength: 80 }),
        fc.integer({ min: 1, max: 9 }),
        fc.integer({ min: 1, max: 9 }),
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 1, max: 100 }),
        async (password, salt, log2Cost, blockSize, parallelization, keyLengthBytes) => {
          const cost = 2 ** log2Cost;
          const native = scryptSync(password, salt, keyLengthBytes, {
            N: cost,
            r: blockSize,
            p: parallelization,
          });
          const portable = await scryptPortable(
            password,
            salt,
            parameters(cost, blockSize, parallelization, keyLengthBytes),
          );
          expect(hex(portable)).toBe(native.toString('hex'));
        },
      ),
      { numRuns: 60 },
    );
  });

  it('matches node:crypto at the token vault parameters (N = 2^15, r = 8, p = 1, 32 bytes)', async () => {
    const password = crypto.getRandomValues(new Uint8Array(40));
    const salt = utf8('keyhold/token-vault/local/v1\u0000k1\u0000tenant-ü');
    const native = scryptSync(password, salt, 32, { N: 2 ** 15, r: 8, p: 1, maxmem: 256 * 2 ** 15 * 8 });
    expect(hex(await scryptPortable(password, salt, parameters(2 ** 15, 8, 1, 32)))).toBe(
      native.toString('hex'),
    );
  });
});

describe('scrypt refuses parameters RFC 7914 forbids or that need more memory than maxMemoryBytes', () => {
  const good = parameters(1024, 8, 1, 32);

  it.each([
    ['a cost that is not a power of two', { ...good, cost: 1000 }],
    ['a cost of 1', { ...good, cost: 1 }],
    ['a cost above 2^31', { ...good, cost: 2 ** 32, maxMemoryBytes: Number.MAX_SAFE_INTEGER }],
    ['r = 1 with N = 2^16', { ...parameters(2 ** 16, 1, 1, 32) }],
    ['a block size of 0', { ...good, blockSize: 0 }],
    ['a fractional block size', { ...good, blockSize: 1.5 }],
    ['no lanes', { ...good, parallelization: 0 }],
    ['an empty key', { ...good, keyLengthBytes: 0 }],
    ['one byte more memory than maxMemoryBytes allows', { ...good, maxMemoryBytes: good.maxMemoryBytes - 1 }],
    [
      'N = 2^20 within the default 32 MiB',
      { ...parameters(2 ** 20, 8, 1, 32), maxMemoryBytes: 32 * 1024 * 1024 },
    ],
  ])('refuses %s with ERR_INVALID_OPTIONS, on both paths', async (_name, refused) => {
    const invalid = expect.objectContaining({ code: 'ERR_INVALID_OPTIONS' });
    await expect(scryptPortable(utf8('password'), utf8('salt'), refused)).rejects.toThrow(invalid);
    await expect(scrypt(utf8('password'), utf8('salt'), refused)).rejects.toThrow(invalid);
  });

  it('takes exactly 128·r·(N + 2) + 128·r·p bytes, as node:crypto counts them', async () => {
    const exact = parameters(1024, 8, 2, 32);
    const native = scryptSync('password', 'salt', 32, { N: 1024, r: 8, p: 2, maxmem: exact.maxMemoryBytes });
    expect(hex(await scryptPortable(utf8('password'), utf8('salt'), exact))).toBe(native.toString('hex'));
    expect(() =>
      scryptSync('password', 'salt', 32, { N: 1024, r: 8, p: 2, maxmem: exact.maxMemoryBytes - 1 }),
    ).toThrow();
  });
});

describe('scrypt uses node:crypto where the runtime has it and the portable scrypt elsewhere', () => {
  it('on Node, gives node:crypto scrypt bytes as a plain Uint8Array', async () => {
    const key = await scrypt(utf8('password'), utf8('NaCl'), parameters(1024, 8, 16, 64));
    expect(hex(key)).toBe(RFC_7914_VECTORS[1]?.key);
    expect(Object.getPrototypeOf(key)).toBe(Uint8Array.prototype);
  });

  it('loads and gives the same key where the runtime offers no Node built-in', async () => {
    await withoutNodeBuiltins(async () => {
      const portable = await import('../src/scrypt.js');
      const { scryptPortable: fresh } = await import('../src/scrypt-portable.js');
      expect(portable.scrypt).toBe(fresh);
      const key = await portable.scrypt(utf8('password'), utf8('NaCl'), parameters(1024, 8, 16, 64));
      expect(hex(key)).toBe(RFC_7914_VECTORS[1]?.key);
    });
  });
});
