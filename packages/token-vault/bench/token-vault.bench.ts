import { randomBytes } from 'node:crypto';
import type { OAuthAsk } from '@keyhold/core';
import { bench, describe } from 'vitest';
import type { AskContext } from '../src/index.js';
import {
  createKmsVault,
  createLocalVault,
  createMemoryBrokerStorage,
  createTokenBroker,
} from '../src/index.js';
import type { VaultBinding } from '../src/vault/vault.js';
import { createTestKms } from '../test/test-kms.js';

const binding: VaultBinding = {
  tenantId: 'tenant-a',
  userId: 'user-1',
  toolModuleId: 'module-1',
  provider: 'github',
};
const token2k = randomBytes(1536).toString('base64'); // 2048 characters
const MASTER = 'a-master-key-of-at-least-32-bytes-long';

// Default scrypt cost, as production runs it; the key is derived before the measured loop starts.
const localVault = createLocalVault({ masterKey: MASTER });
const kmsVault = createKmsVault({ kms: createTestKms() });
const storage = createMemoryBrokerStorage();
const broker = createTokenBroker({
  baseUrl: 'https://host.example',
  vault: localVault,
  storage,
  providers: [{ id: 'github', clientId: 'c', clientSecret: 's' }],
});
const ask: OAuthAsk = { ask: 'oauth', provider: 'github', scopes: [] };
const context: AskContext = {
  tenantId: 'tenant-a',
  userId: 'user-1',
  toolModuleId: 'module-1',
};
const now = Date.now();
await storage.grants.put({
  ...binding,
  scopes: ['read:user', 'user:email'],
  status: 'valid',
  accessTokenEncrypted: await localVault.encrypt('gho_0123456789abcdefghijklmnopqrstuvwxyz', binding),
  tokenExpiresAt: now + 3_600_000,
  createdAt: now,
  updatedAt: now,
});
await kmsVault.encrypt('warm-up', binding);

describe('token from a valid grant (target < 50 µs)', () => {
  bench('broker.requestToken, decrypt included', async () => {
    await broker.requestToken(ask, context);
  });
});

describe('vault encrypt + decrypt of a 2 KB token (target >= 50 000/s)', () => {
  bench('local vault', async () => {
    await localVault.decrypt(await localVault.encrypt(token2k, binding), binding);
  });
  bench('KMS vault (cached data key)', async () => {
    await kmsVault.decrypt(await kmsVault.encrypt(token2k, binding), binding);
  });
});

let tenant = 0;
describe('scrypt derivation (once per tenant per process; default cost N = 2^15)', () => {
  bench(
    'first encrypt for a new tenant (derives the key)',
    async () => {
      tenant += 1;
      await localVault.encrypt('token', { ...binding, tenantId: `bench-tenant-${tenant}` });
    },
    { iterations: 10, time: 0 },
  );
});
