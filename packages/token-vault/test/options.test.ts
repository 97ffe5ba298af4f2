import { describe, expect, it } from 'vitest';
import type { TokenBrokerOptions } from '../src/index.js';
import {
  createLocalVault,
  createMemoryBrokerStorage,
  createTokenBroker,
  TokenVaultError,
} from '../src/index.js';

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
  ])('refuses %s with ERR_INVALID_OPTIONS', (_name, change) => {
    const error = (() => {
      try {
        createTokenBroker({ ...base, ...change } as TokenBrokerOptions);
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(TokenVaultError);
    expect((error as TokenVaultError).code).toBe('ERR_INVALID_OPTIONS');
  });

  it('explicit connect and callback URLs replace the defaults', async () => {
    const broker = createTokenBroker({
      ...base,
      baseUrl: undefined,
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
