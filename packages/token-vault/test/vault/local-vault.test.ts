import { describe, expect, it } from 'vitest';
// The stored-format fixture's master key and binding serve as any valid pair here.
import { BINDING, MASTER_KEY } from '../../../../test-support/node-crypto-sealed-values.js';
import { createLocalVault, TokenVaultError } from '../../src/index.js';
import type { KeyDerivationEvent } from '../../src/vault/local-vault.js';

async function failure(promise: Promise<unknown>): Promise<TokenVaultError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TokenVaultError);
  return error as TokenVaultError;
}

describe('Local vault: AES-256-GCM, per-tenant key derived with scrypt from the master key', () => {
  it('round-trips a token and never stores it in the clear', async () => {
    const vault = createLocalVault({ masterKey: MASTER_KEY, scryptCost: 1024 });
    const sealed = await vault.encrypt('gho_secret-token', BINDING);
    expect(sealed).not.toContain('gho_secret');
    expect(await vault.decrypt(sealed, BINDING)).toBe('gho_secret-token');
  });

  it('stores version and key id, then base64(iv + authTag + ciphertext)', async () => {
    const vault = createLocalVault({ masterKey: MASTER_KEY, masterKeyId: 'k7', scryptCost: 1024 });
    const sealed = await vault.encrypt('0123456789', BINDING);
    const [version, keyId, body, ...rest] = sealed.split('.');
    expect([version, keyId, rest]).toEqual(['v1', 'k7', []]);
    const bytes = Buffer.from(body!, 'base64');
    expect(bytes.toString('base64')).toBe(body);
    // 12-byte IV, 16-byte tag, and GCM's ciphertext is as long as the plaintext.
    expect(bytes.length).toBe(12 + 16 + 10);
    expect(vault.keyIdOf(sealed)).toBe('k7');
  });

  it('decrypts a value sealed before photonId was renamed toolModuleId (the AAD holds values, not names)', async () => {
    // Sealed by the 0.0.0 code with { tenantId: 'tenant-a', userId: 'user-1', photonId: 'module-1', provider: 'github' }.
    const sealedBeforeRename =
      'v1.k1.DsEAlo9/WIoXaiuewJ/pXve8DURwcLjS+2++s6wyXx4/D6HQSnvZCVaCBhEH6mUXZFmn92A4AuA=';
    const vault = createLocalVault({ masterKey: MASTER_KEY, masterKeyId: 'k1', scryptCost: 1024 });
    expect(await vault.decrypt(sealedBeforeRename, BINDING)).toBe('gho_sealed-before-the-rename');
  });

  it('uses a fresh IV every time', async () => {
    const vault = createLocalVault({ masterKey: MASTER_KEY, scryptCost: 1024 });
    expect(await vault.encrypt('same', BINDING)).not.toBe(await vault.encrypt('same', BINDING));
  });

  it.each([
    ['tenant', { tenantId: 'tenant-b' }],
    ['user', { userId: 'user-2' }],
    ['toolModuleId', { toolModuleId: 'module-2' }],
    ['provider', { provider: 'google' }],
  ])('a value copied to another %s row does not decrypt', async (_name, change) => {
    const vault = createLocalVault({ masterKey: MASTER_KEY, scryptCost: 1024 });
    const sealed = await vault.encrypt('token', BINDING);
    expect((await failure(vault.decrypt(sealed, { ...BINDING, ...change }))).code).toBe('ERR_DECRYPT_FAILED');
  });

  it('a tampered body or a swapped key id fails authentication', async () => {
    const vault = createLocalVault({
      masterKey: MASTER_KEY,
      masterKeyId: 'k2',
      previousMasterKeys: { k1: 'the-previous-master-key-32-bytes-long!' },
      scryptCost: 1024,
    });
    const sealed = await vault.encrypt('token', BINDING);
    const bytes = Buffer.from(sealed.split('.')[2]!, 'base64');
    bytes[bytes.length - 1]! ^= 1;
    expect((await failure(vault.decrypt(`v1.k2.${bytes.toString('base64')}`, BINDING))).code).toBe(
      'ERR_DECRYPT_FAILED',
    );
    expect((await failure(vault.decrypt(sealed.replace('v1.k2.', 'v1.k1.'), BINDING))).code).toBe(
      'ERR_DECRYPT_FAILED',
    );
  });

  it('malformed values and unknown key ids are typed errors', async () => {
    const vault = createLocalVault({ masterKey: MASTER_KEY, scryptCost: 1024 });
    expect((await failure(vault.decrypt('plain-token', BINDING))).code).toBe('ERR_MALFORMED_CIPHERTEXT');
    expect((await failure(vault.decrypt('v1.k1.!!!', BINDING))).code).toBe('ERR_MALFORMED_CIPHERTEXT');
    expect(
      (await failure(vault.decrypt('v1.k9.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', BINDING))).code,
    ).toBe('ERR_UNKNOWN_KEY');
  });

  it('derives each tenant key once per process, however many values and concurrent calls', async () => {
    const derived: KeyDerivationEvent[] = [];
    const vault = createLocalVault({ masterKey: MASTER_KEY, onKeyDerived: (event) => derived.push(event) });
    const sealed = await Promise.all(
      Array.from({ length: 50 }, (_, i) => vault.encrypt(`token-${i}`, BINDING)),
    );
    await Promise.all(sealed.map((value) => vault.decrypt(value, BINDING)));
    await vault.encrypt('other tenant', { ...BINDING, tenantId: 'tenant-b' });
    await vault.encrypt('other tenant again', { ...BINDING, tenantId: 'tenant-b' });
    expect(derived.map((event) => event.tenantId)).toEqual(['tenant-a', 'tenant-b']);
  });

  it('tenants get different keys from one master key', async () => {
    const vault = createLocalVault({ masterKey: MASTER_KEY, scryptCost: 1024 });
    const sealed = await vault.encrypt('token', BINDING);
    // Rebinding only the tenant (and re-sealing the AAD is impossible without the key) must fail.
    await expect(vault.decrypt(sealed, { ...BINDING, tenantId: 'tenant-b' })).rejects.toThrow(
      TokenVaultError,
    );
  });
});

describe('Local vault key rotation: rewrap re-encrypts to the newest key', () => {
  it('values under a previous key still decrypt, and rewrap moves them to the current key', async () => {
    const old = createLocalVault({ masterKey: MASTER_KEY, masterKeyId: 'k1', scryptCost: 1024 });
    const sealed = await old.encrypt('token', BINDING);
    const rotated = createLocalVault({
      masterKey: 'the-new-master-key-is-also-32-bytes-long',
      masterKeyId: 'k2',
      previousMasterKeys: { k1: MASTER_KEY },
      scryptCost: 1024,
    });
    expect(await rotated.decrypt(sealed, BINDING)).toBe('token');
    const rewrapped = await rotated.rewrap(sealed, BINDING);
    expect(rotated.keyIdOf(rewrapped)).toBe('k2');
    expect(await rotated.decrypt(rewrapped, BINDING)).toBe('token');
    const retired = createLocalVault({
      masterKey: 'the-new-master-key-is-also-32-bytes-long',
      masterKeyId: 'k2',
      scryptCost: 1024,
    });
    expect(await retired.decrypt(rewrapped, BINDING)).toBe('token');
    expect((await failure(retired.decrypt(sealed, BINDING))).code).toBe('ERR_UNKNOWN_KEY');
  });
});

describe('Local vault options are validated at creation', () => {
  it.each([
    [{ masterKey: 'short' }, 'at least 32 bytes'],
    [{ masterKey: new Uint8Array(31) }, 'at least 32 bytes'],
    [{ masterKey: MASTER_KEY, masterKeyId: 'has.dot' }, 'invalid key id'],
    [{ masterKey: MASTER_KEY, scryptCost: 1000 }, 'power of two'],
    [{ masterKey: MASTER_KEY, previousMasterKeys: { k1: MASTER_KEY } }, 'repeats'],
  ])('refuses %o', (options, message) => {
    expect(() => createLocalVault(options)).toThrow(message);
  });
});
