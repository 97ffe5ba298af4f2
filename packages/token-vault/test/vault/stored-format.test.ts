import { createDecipheriv } from 'node:crypto';
import type { AesGcm, Scrypt } from '@keyhold/internal';
import { aesGcm, nodeAesGcm, scrypt, scryptPortable, webCryptoAesGcm } from '@keyhold/internal';
import { describe, expect, it } from 'vitest';
import {
  BINDING,
  DATA_KEY,
  fixedKms,
  MASTER_KEY,
  PLAINTEXT,
  SEALED_KMS,
  SEALED_LOCAL_1024,
} from '../../../../test-support/node-crypto-sealed-values.js';
import { withoutNodeBuiltins } from '../../../../test-support/without-node-builtins.js';
import { createKmsVault, createLocalVault, TokenVaultError } from '../../src/index.js';
import { createLocalVaultDerivingWith } from '../../src/vault/local-vault.js';
import { open, parseSealedValue, seal } from '../../src/vault/sealed-value.js';

// Every value below was sealed by the node:crypto implementation (createCipheriv, Buffer base64, node scrypt)
// just before the vault moved to WebCrypto (issue 28). They are the stored format: if one stops opening,
// tokens already in databases are lost. Never regenerate them. The ones the workerd check opens too live in
// test-support/node-crypto-sealed-values.ts.
/** The same as SEALED_LOCAL_1024 with the default scrypt cost (2^15). */
const SEALED_LOCAL_DEFAULT_COST =
  'v1.k1.rHFt+IN6Z0uzRQ94NxeC6pMBY4gSf4Sig2qLihQGyF6nn+KGeH/z6bUEOLKh1prQQZN4I8qupUGWAPfRDQYIfmPoLjWZCyTq8ls5Sp1taJiVGqoCc5aSDVLiIf/oX+kRKgLS';
/** An empty token, a byte master key, a non-ASCII tenant id and cost 2048. */
const BYTES_MASTER = new Uint8Array(Array.from({ length: 40 }, (_, i) => (i * 7) % 256));
const SEALED_LOCAL_BYTES = 'v1.bytes-key.xtWbMsHnTpATSaVFOyqQXYc/nk9TDeoXSloHDQ==';
/** node:crypto's scrypt(MASTER_KEY, 'keyhold/token-vault/local/v1\0k1\0tenant-a', 32, { N: 1024, r: 8, p: 1 }). */
const TENANT_A_KEY_1024 = 'e10fd4b26738af2fd192117440e3a7cfa7888b8795e1a84f96e644bebfbdbb27';

async function failure(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TokenVaultError);
  return (error as TokenVaultError).code;
}

const toBase64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');
const fromBase64 = (text: string) => new Uint8Array(Buffer.from(text, 'base64'));

describe('values sealed by the node:crypto implementation still open (the stored format is unchanged)', () => {
  it('opens a local-vault value (scrypt cost 1024) sealed before the move to WebCrypto', async () => {
    const vault = createLocalVault({ masterKey: MASTER_KEY, masterKeyId: 'k1', scryptCost: 1024 });
    expect(await vault.decrypt(SEALED_LOCAL_1024, BINDING)).toBe(PLAINTEXT);
  });

  it('opens a local-vault value sealed with the default scrypt cost', async () => {
    const vault = createLocalVault({ masterKey: MASTER_KEY, masterKeyId: 'k1' });
    expect(await vault.decrypt(SEALED_LOCAL_DEFAULT_COST, BINDING)).toBe(PLAINTEXT);
  });

  it('opens an empty token sealed under a byte master key for a non-ASCII tenant id', async () => {
    const vault = createLocalVault({ masterKey: BYTES_MASTER, masterKeyId: 'bytes-key', scryptCost: 2048 });
    expect(await vault.decrypt(SEALED_LOCAL_BYTES, { ...BINDING, tenantId: 'tenant-ü' })).toBe('');
  });

  it('opens a KMS-vault value (the wrapped data key in its header) sealed before the move', async () => {
    expect(await createKmsVault({ kms: fixedKms }).decrypt(SEALED_KMS, BINDING)).toBe(PLAINTEXT);
  });
});

describe('a new value has the old layout: header, then base64(iv + tag + ciphertext) that node:crypto opens', () => {
  it('node:crypto AES-256-GCM with the scrypt tenant key opens what the vault seals today', async () => {
    const vault = createLocalVault({ masterKey: MASTER_KEY, masterKeyId: 'k1', scryptCost: 1024 });
    const sealed = await vault.encrypt(PLAINTEXT, BINDING);
    const [version, keyId, body, ...rest] = sealed.split('.');
    expect([version, keyId, rest]).toEqual(['v1', 'k1', []]);
    const bytes = fromBase64(body as string);
    expect(toBase64(bytes)).toBe(body);
    const decipher = createDecipheriv(
      'aes-256-gcm',
      Buffer.from(TENANT_A_KEY_1024, 'hex'),
      bytes.subarray(0, 12),
      {
        authTagLength: 16,
      },
    );
    decipher.setAAD(
      Buffer.from(
        JSON.stringify(['keyhold/token-vault', 'v1.k1', 'tenant-a', 'user-1', 'module-1', 'github']),
        'utf8',
      ),
    );
    decipher.setAuthTag(bytes.subarray(12, 28));
    const opened = Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8');
    expect(opened).toBe(PLAINTEXT);
  });
});

describe('tampering any byte of a sealed value fails with a typed error, never a wrong plaintext', () => {
  it('flipping any bit of any byte of iv, tag or ciphertext gives ERR_DECRYPT_FAILED', async () => {
    const vault = createLocalVault({ masterKey: MASTER_KEY, masterKeyId: 'k1', scryptCost: 1024 });
    const bytes = fromBase64(SEALED_LOCAL_1024.split('.')[2] as string);
    for (let index = 0; index < bytes.length; index++) {
      for (const bit of [0x01, 0x80]) {
        const tampered = bytes.slice();
        tampered[index] = (tampered[index] as number) ^ bit;
        expect(await failure(vault.decrypt(`v1.k1.${toBase64(tampered)}`, BINDING)), `byte ${index}`).toBe(
          'ERR_DECRYPT_FAILED',
        );
      }
    }
  });

  it('a body shorter than iv + tag is ERR_MALFORMED_CIPHERTEXT', async () => {
    const vault = createLocalVault({ masterKey: MASTER_KEY, masterKeyId: 'k1', scryptCost: 1024 });
    const bytes = fromBase64(SEALED_LOCAL_1024.split('.')[2] as string);
    for (const length of [0, 1, 12, 27]) {
      expect(await failure(vault.decrypt(`v1.k1.${toBase64(bytes.subarray(0, length))}`, BINDING))).toBe(
        'ERR_MALFORMED_CIPHERTEXT',
      );
    }
  });

  it('a body that is not the padded, canonical base64 a vault writes is ERR_MALFORMED_CIPHERTEXT', async () => {
    const vault = createLocalVault({ masterKey: MASTER_KEY, masterKeyId: 'k1', scryptCost: 1024 });
    const body = SEALED_LOCAL_1024.split('.')[2] as string;
    const respelt = [
      body.replaceAll('+', '-').replaceAll('/', '_'),
      `${body.slice(0, 20)} ${body.slice(20)}`,
      `${body}====`,
      '!!!',
    ];
    for (const bad of respelt) {
      expect(await failure(vault.decrypt(`v1.k1.${bad}`, BINDING)), bad).toBe('ERR_MALFORMED_CIPHERTEXT');
    }
  });

  it('a header changed to another known key id is ERR_DECRYPT_FAILED, to an unknown one ERR_UNKNOWN_KEY', async () => {
    const vault = createLocalVault({
      masterKey: MASTER_KEY,
      masterKeyId: 'k1',
      previousMasterKeys: { k2: 'the-previous-master-key-32-bytes-long!' },
      scryptCost: 1024,
    });
    expect(await failure(vault.decrypt(SEALED_LOCAL_1024.replace('v1.k1.', 'v1.k2.'), BINDING))).toBe(
      'ERR_DECRYPT_FAILED',
    );
    expect(await failure(vault.decrypt(SEALED_LOCAL_1024.replace('v1.k1.', 'v1.k3.'), BINDING))).toBe(
      'ERR_UNKNOWN_KEY',
    );
    expect(await failure(vault.decrypt(SEALED_LOCAL_1024.replace('v1.k1.', 'v2.k1.'), BINDING))).toBe(
      'ERR_MALFORMED_CIPHERTEXT',
    );
  });

  it('the wrapped data key is authenticated: a changed one fails even when the KMS unwraps it', async () => {
    const vault = createKmsVault({ kms: fixedKms });
    const [version, keyId, wrapped, body] = SEALED_KMS.split('.') as [string, string, string, string];
    const changed = `${wrapped.slice(0, -2)}AA`;
    expect(changed).not.toBe(wrapped);
    expect(await failure(vault.decrypt(`${version}.${keyId}.${changed}.${body}`, BINDING))).toBe(
      'ERR_DECRYPT_FAILED',
    );
    const bytes = fromBase64(body);
    bytes[bytes.length - 1] = (bytes[bytes.length - 1] as number) ^ 1;
    expect(await failure(vault.decrypt(`${version}.${keyId}.${wrapped}.${toBase64(bytes)}`, BINDING))).toBe(
      'ERR_DECRYPT_FAILED',
    );
  });
});

describe('the portable scrypt (workers without node:crypto) derives the tenant keys node:crypto derives', () => {
  /** Runs `implementation` and keeps every key it derives. */
  function recording(implementation: Scrypt): { derive: Scrypt; keys: string[] } {
    const keys: string[] = [];
    const derive: Scrypt = async (password, salt, parameters) => {
      const key = await implementation(password, salt, parameters);
      keys.push(Buffer.from(key).toString('hex'));
      return key;
    };
    return { derive, keys };
  }

  it('derives the same tenant key on both paths: the one node:crypto derived for the stored values', async () => {
    const portable = recording(scryptPortable);
    const native = recording(scrypt);
    for (const { derive } of [portable, native]) {
      const vault = createLocalVaultDerivingWith(
        { masterKey: MASTER_KEY, masterKeyId: 'k1', scryptCost: 1024 },
        derive,
      );
      expect(await vault.decrypt(SEALED_LOCAL_1024, BINDING)).toBe(PLAINTEXT);
    }
    expect(portable.keys).toEqual([TENANT_A_KEY_1024]);
    expect(native.keys).toEqual([TENANT_A_KEY_1024]);
    expect(scrypt).not.toBe(scryptPortable);
  });

  it('opens every stored local value, byte master keys and the default cost included', async () => {
    const byString = createLocalVaultDerivingWith(
      { masterKey: MASTER_KEY, masterKeyId: 'k1' },
      scryptPortable,
    );
    expect(await byString.decrypt(SEALED_LOCAL_DEFAULT_COST, BINDING)).toBe(PLAINTEXT);
    const byBytes = createLocalVaultDerivingWith(
      { masterKey: BYTES_MASTER, masterKeyId: 'bytes-key', scryptCost: 2048 },
      scryptPortable,
    );
    expect(await byBytes.decrypt(SEALED_LOCAL_BYTES, { ...BINDING, tenantId: 'tenant-ü' })).toBe('');
  });

  it('a value sealed on one path opens on the other, for every tenant', async () => {
    const options = { masterKey: MASTER_KEY, masterKeyId: 'k1', scryptCost: 1024 };
    const onWorkers = createLocalVaultDerivingWith(options, scryptPortable);
    const onNode = createLocalVault(options);
    for (const tenantId of ['tenant-a', 'tenant-b', 'テナント', '']) {
      const row = { ...BINDING, tenantId };
      expect(await onNode.decrypt(await onWorkers.encrypt('from a worker', row), row)).toBe('from a worker');
      expect(await onWorkers.decrypt(await onNode.encrypt('from node', row), row)).toBe('from node');
    }
  });
});

describe('both AES-GCM engines, node:crypto (Node) and WebCrypto (workers), read and write the same stored bytes', () => {
  const tenantKey = new Uint8Array(Buffer.from(TENANT_A_KEY_1024, 'hex'));
  const engines: [string, AesGcm][] = [
    ['node:crypto', nodeAesGcm as AesGcm],
    ['WebCrypto', webCryptoAesGcm],
  ];

  it('Node gets the node:crypto engine', () => {
    expect(nodeAesGcm).toBeDefined();
    expect(aesGcm).toBe(nodeAesGcm);
  });

  it.each(engines)('%s opens the values sealed before the move to WebCrypto', async (_name, engine) => {
    expect(await open(tenantKey, parseSealedValue(SEALED_LOCAL_1024), BINDING, engine)).toBe(PLAINTEXT);
    expect(await open(DATA_KEY, parseSealedValue(SEALED_KMS), BINDING, engine)).toBe(PLAINTEXT);
  });

  it('for one key, IV and AAD both engines give the same iv + tag + ciphertext, and each opens the other', async () => {
    for (const length of [0, 1, 15, 16, 17, 2048]) {
      const plaintext = crypto.getRandomValues(new Uint8Array(length));
      const iv = crypto.getRandomValues(new Uint8Array(12));
      const aad = crypto.getRandomValues(new Uint8Array(length % 50));
      const byNode = await (nodeAesGcm as AesGcm).seal(tenantKey, iv, aad, plaintext);
      const byWebCrypto = await webCryptoAesGcm.seal(tenantKey, iv, aad, plaintext);
      expect(toBase64(byWebCrypto), `length ${length}`).toBe(toBase64(byNode));
      expect(byNode.length).toBe(12 + 16 + length);
      expect(await webCryptoAesGcm.open(tenantKey, byNode, aad)).toEqual(plaintext);
      expect(await (nodeAesGcm as AesGcm).open(tenantKey, byWebCrypto, aad)).toEqual(plaintext);
    }
  });

  it.each(engines)('%s: a value it seals opens on the other engine', async (_name, engine) => {
    const other = engine === webCryptoAesGcm ? (nodeAesGcm as AesGcm) : webCryptoAesGcm;
    const sealed = await seal(tenantKey, 'v1.k1', PLAINTEXT, BINDING, engine);
    expect(await open(tenantKey, parseSealedValue(sealed), BINDING, other)).toBe(PLAINTEXT);
  });

  it.each(engines)(
    '%s: flipping any bit of iv, tag or ciphertext gives ERR_DECRYPT_FAILED',
    async (_name, engine) => {
      const bytes = fromBase64(SEALED_LOCAL_1024.split('.')[2] as string);
      for (let index = 0; index < bytes.length; index++) {
        const tampered = bytes.slice();
        tampered[index] = (tampered[index] as number) ^ (1 << (index % 8));
        const parsed = parseSealedValue(`v1.k1.${toBase64(tampered)}`);
        expect(await failure(open(tenantKey, parsed, BINDING, engine)), `byte ${index}`).toBe(
          'ERR_DECRYPT_FAILED',
        );
      }
    },
  );

  it('a key that is not 32 bytes is a misuse (TypeError), not a failed authentication', async () => {
    await expect(seal(new Uint8Array(16), 'v1.k1', 'x', BINDING)).rejects.toThrow(TypeError);
    await expect(open(new Uint8Array(16), parseSealedValue(SEALED_LOCAL_1024), BINDING)).rejects.toThrow(
      TypeError,
    );
  });
});

describe('where the runtime offers no Node built-in, the vault runs on WebCrypto and the portable scrypt', () => {
  it('loads without process.getBuiltinModule, opens every stored value and round-trips new ones', async () => {
    await withoutNodeBuiltins(async () => {
      const engines = await import('../../../internal/src/aes-gcm.js');
      expect(engines.nodeAesGcm).toBeUndefined();
      expect(engines.aesGcm).toBe(engines.webCryptoAesGcm);
      const internal = await import('@keyhold/internal');
      expect(internal.scrypt).toBe(internal.scryptPortable);
      const onWorkers = await import('../../src/index.js');
      const local = onWorkers.createLocalVault({
        masterKey: MASTER_KEY,
        masterKeyId: 'k1',
        scryptCost: 1024,
      });
      expect(await local.decrypt(SEALED_LOCAL_1024, BINDING)).toBe(PLAINTEXT);
      expect(await local.decrypt(await local.encrypt('new', BINDING), BINDING)).toBe('new');
      expect(
        await createLocalVault({ masterKey: MASTER_KEY, scryptCost: 1024 }).decrypt(
          await local.encrypt('new', BINDING),
          BINDING,
        ),
      ).toBe('new');
      const kms = onWorkers.createKmsVault({ kms: fixedKms });
      expect(await kms.decrypt(SEALED_KMS, BINDING)).toBe(PLAINTEXT);
    });
  });
});
