import { createManualClock } from '@keyhold/core';
import { describe, expect, it } from 'vitest';
import { createKmsVault, TokenVaultError } from '../../src/index.js';
import type { VaultBinding } from '../../src/vault/vault.js';
import { createTestKms } from '../test-kms.js';

const binding: VaultBinding = {
  tenantId: 'tenant-a',
  userId: 'user-1',
  toolModuleId: 'module-1',
  provider: 'github',
};

describe('KMS vault: envelope encryption through the KeyManagementService interface', () => {
  it('round-trips, and the value carries version, KMS key id and the wrapped data key', async () => {
    const kms = createTestKms({ keyId: 'kms-1' });
    const vault = createKmsVault({ kms });
    const sealed = await vault.encrypt('token', binding);
    const parts = sealed.split('.');
    expect(parts[0]).toBe('v1k');
    expect(parts[1]).toBe('kms-1');
    expect(parts).toHaveLength(4);
    expect(await vault.decrypt(sealed, binding)).toBe('token');
  });

  it('another instance with the same KMS decrypts by unwrapping the data key', async () => {
    const kms = createTestKms();
    const sealed = await createKmsVault({ kms }).encrypt('token', binding);
    const other = createKmsVault({ kms });
    expect(await other.decrypt(sealed, binding)).toBe('token');
    expect(await other.decrypt(sealed, binding)).toBe('token');
    expect(kms.decryptCalls).toBe(1);
  });

  it('caches a data key for one hour: one generation per tenant within the hour, a new one after', async () => {
    const clock = createManualClock(Date.parse('2026-03-01T12:00:00Z'));
    const kms = createTestKms();
    const vault = createKmsVault({ kms, clock });
    await Promise.all(Array.from({ length: 20 }, () => vault.encrypt('token', binding)));
    expect(kms.generateCalls).toBe(1);
    await vault.encrypt('token', { ...binding, tenantId: 'tenant-b' });
    expect(kms.generateCalls).toBe(2);
    clock.advance(60 * 60 * 1000 - 1);
    await vault.encrypt('token', binding);
    expect(kms.generateCalls).toBe(2);
    clock.advance(1);
    await vault.encrypt('token', binding);
    expect(kms.generateCalls).toBe(3);
  });

  it('the unwrapped-key cache also expires after one hour', async () => {
    const clock = createManualClock(Date.parse('2026-03-01T12:00:00Z'));
    const kms = createTestKms();
    const sealed = await createKmsVault({ kms, clock }).encrypt('token', binding);
    const reader = createKmsVault({ kms, clock });
    await reader.decrypt(sealed, binding);
    clock.advance(59 * 60 * 1000);
    await reader.decrypt(sealed, binding);
    expect(kms.decryptCalls).toBe(1);
    clock.advance(2 * 60 * 1000);
    await reader.decrypt(sealed, binding);
    expect(kms.decryptCalls).toBe(2);
  });

  it('bounds the uses of one data key', async () => {
    const kms = createTestKms();
    const vault = createKmsVault({ kms, dataKeyMaxUses: 3 });
    for (let i = 0; i < 7; i++) await vault.encrypt(`token-${i}`, binding);
    expect(kms.generateCalls).toBe(3);
  });

  it('binds values to their row: a value copied elsewhere does not decrypt', async () => {
    const vault = createKmsVault({ kms: createTestKms() });
    const sealed = await vault.encrypt('token', binding);
    for (const change of [{ userId: 'user-2' }, { toolModuleId: 'module-2' }, { provider: 'google' }]) {
      await expect(vault.decrypt(sealed, { ...binding, ...change })).rejects.toMatchObject({
        code: 'ERR_DECRYPT_FAILED',
      });
    }
    // Another tenant cannot even unwrap the data key (the tenant is the KMS encryption context).
    await expect(vault.decrypt(sealed, { ...binding, tenantId: 'tenant-b' })).rejects.toBeInstanceOf(
      TokenVaultError,
    );
  });

  it('after a KMS rotation, retireDataKeys + rewrap move values to the newest key; old ones still decrypt', async () => {
    const kms = createTestKms({ keyId: 'kms-1' });
    const vault = createKmsVault({ kms });
    const sealed = await vault.encrypt('token', binding);
    kms.rotate('kms-2');
    vault.retireDataKeys();
    const rewrapped = await vault.rewrap(sealed, binding);
    expect(vault.keyIdOf(rewrapped)).toBe('kms-2');
    expect(await vault.decrypt(sealed, binding)).toBe('token');
    kms.destroy('kms-1');
    const fresh = createKmsVault({ kms });
    expect(await fresh.decrypt(rewrapped, binding)).toBe('token');
    await expect(fresh.decrypt(sealed, binding)).rejects.toMatchObject({ code: 'ERR_UNKNOWN_KEY' });
  });

  it('refuses bad options at creation', () => {
    expect(() => createKmsVault({ kms: createTestKms(), dataKeyMaxUses: 0 })).toThrow(TokenVaultError);
    expect(() => createKmsVault({ kms: createTestKms(), dataKeyTtlSeconds: -1 })).toThrow(TokenVaultError);
  });
});
