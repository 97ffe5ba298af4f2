import { expectInvalidOptions } from '@keyhold/internal/testing';
import { describe, expect, it } from 'vitest';
import type { TokenBrokerOptions } from '../src/index.js';
import {
  createKmsVault,
  createLocalVault,
  createMemoryBrokerStorage,
  createTokenBroker,
  TokenVaultError,
} from '../src/index.js';
import { createTestKms } from '../src/testing.js';

const base: TokenBrokerOptions = {
  baseUrl: 'https://host.example',
  vault: createLocalVault({ masterKey: 'a-master-key-of-at-least-32-bytes-long', scryptCost: 1024 }),
  storage: createMemoryBrokerStorage(),
  providers: [{ id: 'github', clientId: 'c', clientSecret: 's' }],
};

describe('Broker options are validated once, at creation', () => {
  it('accepts valid options', () => {
    expect(typeof createTokenBroker(base).getToken).toBe('function');
  });

  it('accepts, and ignores, the deprecated stateSecret (the state is opaque and needs no key)', () => {
    expect(typeof createTokenBroker({ ...base, stateSecret: 'short' }).getToken).toBe('function');
  });

  it.each([
    ['no base URL and no connect/callback URLs', { baseUrl: undefined }],
    ['a relative connect URL', { connectUrl: '/connect' }],
    ['a provider registered twice', { providers: [base.providers[0]!, base.providers[0]!] }],
    ['a negative refresh buffer', { refreshBufferSeconds: -1 }],
    ['a zero elicitation TTL', { elicitationTtlSeconds: 0 }],
    ['a fractional token request timeout', { tokenRequestTimeoutMs: 1.5 }],
    ['a callback URL with a fragment', { callbackUrl: 'https://host.example/cb#x' }],
    // Each of these used to be met only while serving a request: a user's first ask or callback.
    ['a vault without decrypt', { vault: { encrypt: async () => '' } }],
    [
      'storage without a refresh lock',
      { storage: { ...createMemoryBrokerStorage(), refreshLock: undefined } },
    ],
    [
      'an onAuthorizationComplete that is not a function',
      { onAuthorizationComplete: 'https://hook.example' },
    ],
  ])('refuses %s with ERR_INVALID_OPTIONS', (_name, change) => {
    expectInvalidOptions(TokenVaultError, () =>
      createTokenBroker({ ...base, ...change } as TokenBrokerOptions),
    );
  });

  it('explicit connect and callback URLs replace the defaults', async () => {
    const { baseUrl: _baseUrl, ...withoutBaseUrl } = base;
    const broker = createTokenBroker({
      ...withoutBaseUrl,
      connectUrl: 'https://app.example/connect?x=1',
      callbackUrl: 'https://app.example/cb',
    });
    const error = await broker
      .getToken(
        { ask: 'oauth', provider: 'github', scopes: [] },
        { tenantId: 't', userId: 'u', toolModuleId: 'p' },
      )
      .catch((e: { elicitationUrl: string }) => e);
    const url = new URL((error as { elicitationUrl: string }).elicitationUrl);
    expect(url.origin + url.pathname).toBe('https://app.example/connect');
    expect(url.searchParams.get('x')).toBe('1');
  });
});

describe('Vault options are validated once, at creation', () => {
  const masterKey = 'a-master-key-of-at-least-32-bytes-long';

  it.each([
    ['no master key', { masterKey: undefined }],
    ['a key cache size of 0', { masterKey, keyCacheSize: 0 }],
    ['a scrypt cost that is not a power of two', { masterKey, scryptCost: 1000 }],
  ])('createLocalVault refuses %s with ERR_INVALID_OPTIONS', (_name, options) => {
    expectInvalidOptions(TokenVaultError, () => createLocalVault(options as never));
  });

  it.each([
    ['no KMS', { kms: undefined }],
    ['a data key cache size of 0', { kms: createTestKms(), dataKeyCacheSize: 0 }],
    ['a fractional data key TTL', { kms: createTestKms(), dataKeyTtlSeconds: 0.5 }],
  ])('createKmsVault refuses %s with ERR_INVALID_OPTIONS', (_name, options) => {
    expectInvalidOptions(TokenVaultError, () => createKmsVault(options as never));
  });
});
