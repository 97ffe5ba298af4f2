import { describe, expect, it } from 'vitest';
import { TokenVaultError } from '../src/index.js';
import type { CustomProviderRegistration } from '../src/providers.js';
import { resolveProvider } from '../src/providers.js';

const custom: CustomProviderRegistration = {
  id: 'acme',
  name: 'Acme',
  authorizationUrl: 'https://acme.example/oauth/authorize',
  tokenUrl: 'https://acme.example/oauth/token',
  scopes: ['read'],
  clientId: 'id',
  clientSecret: 'secret',
};

describe('Built-in providers are registered with (id, clientId, clientSecret)', () => {
  it.each([
    ['google', ['email', 'openid', 'profile'], 'https://oauth2.googleapis.com/token'],
    ['github', ['read:user', 'user:email'], 'https://github.com/login/oauth/access_token'],
    [
      'microsoft',
      ['User.Read', 'email', 'openid', 'profile'],
      'https://login.microsoftonline.com/common/oauth2/v2.0/token',
    ],
  ])('%s has its default scopes and endpoints', (id, scopes, tokenUrl) => {
    const provider = resolveProvider({ id, clientId: 'c', clientSecret: 's' });
    expect(provider.defaultScopes).toEqual(scopes);
    expect(provider.tokenUrl).toBe(tokenUrl);
    expect(provider.clientId).toBe('c');
  });

  it('Microsoft-style requests offline_access for a refresh token; Google-style asks for offline access', () => {
    expect(resolveProvider({ id: 'microsoft', clientId: 'c', clientSecret: 's' }).additionalScopes).toEqual([
      'offline_access',
    ]);
    expect(
      resolveProvider({ id: 'google', clientId: 'c', clientSecret: 's' }).authorizationParams,
    ).toMatchObject({
      access_type: 'offline',
    });
  });

  it('a template can be registered under another id', () => {
    const provider = resolveProvider({
      id: 'github-work',
      template: 'github',
      clientId: 'c',
      clientSecret: 's',
    });
    expect(provider.id).toBe('github-work');
    expect(provider.name).toBe('GitHub');
  });

  it('an id that is no template and has no endpoints is refused', () => {
    expect(() => resolveProvider({ id: 'gitlab', clientId: 'c', clientSecret: 's' })).toThrow(
      TokenVaultError,
    );
  });
});

describe('Custom providers: id, name, authorizationUrl, tokenUrl, scopes, clientId, clientSecret, validated', () => {
  it('resolves with defaults', () => {
    expect(resolveProvider(custom)).toEqual({
      id: 'acme',
      name: 'Acme',
      authorizationUrl: custom.authorizationUrl,
      tokenUrl: custom.tokenUrl,
      defaultScopes: ['read'],
      clientId: 'id',
      clientSecret: 'secret',
      tokenEndpointAuthMethod: 'client_secret_post',
      additionalScopes: [],
      authorizationParams: {},
    });
  });

  it.each([
    ['a plain-http endpoint', { tokenUrl: 'http://acme.example/token' }],
    ['a non-URL', { authorizationUrl: 'acme' }],
    ['no scopes', { scopes: [] }],
    ['a scope with a space', { scopes: ['a b'] }],
    ['an empty client secret', { clientSecret: '' }],
    ['an upper-case id', { id: 'Acme' }],
    ['an unknown field', { audience: 'x' }],
    ['a reserved authorization parameter', { authorizationParams: { state: 'x' } }],
  ])('refuses %s', (_name, change) => {
    expect(() => resolveProvider({ ...custom, ...change } as CustomProviderRegistration)).toThrow(
      TokenVaultError,
    );
  });

  it('allows plain http on a loopback host', () => {
    expect(resolveProvider({ ...custom, tokenUrl: 'http://127.0.0.1:9999/token' }).tokenUrl).toBe(
      'http://127.0.0.1:9999/token',
    );
  });
});
