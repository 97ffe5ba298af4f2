import type { Server } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toNodeListener } from '@keyhold/adapter-node';
import { sha256Base64url } from '@keyhold/internal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuthorizationServerWithEndpoints } from '../../src/authorization-server.js';
import { createFederatedLogin, type FederatedLogin } from '../../src/federated/login.js';
import { createMemoryUserStore } from '../../src/federated/memory-store.js';
import { generateSigningKey } from '../../src/keys.js';
import { createMemoryStorage } from '../../src/memory-store.js';

// The upstream identity provider is a tenant ("upstream") of Keyhold's own authorization server, on a real
// node:http server. Its users are whoever the test's "browser" says (the x-upstream-user header stands in
// for the upstream's session cookie); the federated client is first-party there, so no consent screen.
const REDIRECT_URI = 'http://127.0.0.1:1/federated/callback';
const CLIENT_SECRET = 'a-long-client-secret-for-the-upstream-tenant';
let server: Server;
let issuer = '';
let login: FederatedLogin;
const userStore = createMemoryUserStore();

beforeAll(async () => {
  server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  issuer = `${baseUrl}/tenant/upstream`;
  const storage = createMemoryStorage();
  await storage.clients.create('upstream', {
    clientId: 'keyhold-host',
    redirectUris: [REDIRECT_URI],
    grantTypes: ['authorization_code'],
    responseTypes: ['code'],
    tokenEndpointAuthMethod: 'client_secret_basic',
    clientSecretHash: sha256Base64url(CLIENT_SECRET),
    scope: 'openid profile',
    createdAt: Date.now(),
  });
  const signingKey = await generateSigningKey('ES256', 'upstream-1');
  const oauth = createAuthorizationServerWithEndpoints({
    baseUrl,
    storage,
    tenants: {
      get: (slug) =>
        slug === 'upstream'
          ? { signingKeys: [signingKey], firstPartyClientIds: ['keyhold-host'] }
          : undefined,
    },
  });
  // The whole server through the one Node adapter: authorize, token, JWKS and every discovery form.
  server.on(
    'request',
    toNodeListener(oauth, {
      userId: (request) => {
        const user = request.headers['x-upstream-user'];
        return typeof user === 'string' ? user : undefined;
      },
    }),
  );
  login = createFederatedLogin({
    providers: [
      {
        id: 'keyhold',
        issuer,
        clientId: 'keyhold-host',
        clientSecret: CLIENT_SECRET,
        redirectUri: REDIRECT_URI,
        allowInsecureRequests: true,
      },
    ],
    userStore,
  });
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** The browser step at the upstream: the signed-in user opens the authorization URL and is sent back. */
async function signInUpstream(url: string, user: string): Promise<string> {
  const response = await fetch(url, { redirect: 'manual', headers: { 'x-upstream-user': user } });
  const location = response.headers.get('location');
  if (response.status !== 302 || !location?.startsWith(REDIRECT_URI)) {
    throw new Error(
      `expected a redirect to the callback, got ${response.status} ${location}: ${await response.text()}`,
    );
  }
  return location;
}

describe('federated login against a tenant of our own authorization server (a real OIDC provider)', () => {
  it('discovers the tenant, validates its id_token, and provisions a local user on first login', async () => {
    const started = await login.start('keyhold', { returnTo: '/after' });
    expect(started.url.startsWith(`${issuer}/authorize?`)).toBe(true);
    const result = await login.complete(await signInUpstream(started.url, 'alice'), { state: started.state });
    expect(result).toMatchObject({
      ok: true,
      created: true,
      identity: { issuer, subject: 'alice' },
      returnTo: '/after',
    });
  });

  it('maps the same upstream subject to the same local user on the next login', async () => {
    const first = await login.start('keyhold');
    const a = await login.complete(await signInUpstream(first.url, 'bob'), { state: first.state });
    const second = await login.start('keyhold');
    const b = await login.complete(await signInUpstream(second.url, 'bob'), { state: second.state });
    expect(a.ok && b.ok).toBe(true);
    if (a.ok && b.ok) {
      expect(b.created).toBe(false);
      expect(b.userId).toBe(a.userId);
    }
  });

  it('refuses a callback replayed after it completed', async () => {
    const started = await login.start('keyhold');
    const callback = await signInUpstream(started.url, 'carol');
    expect((await login.complete(callback, { state: started.state })).ok).toBe(true);
    expect(await login.complete(callback, { state: started.state })).toMatchObject({
      ok: false,
      error: 'invalid_state',
    });
  });
});
