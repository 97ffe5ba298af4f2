import type { Server } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createManualClock } from '@keyhold/core';
import { exportJWK, generateKeyPair } from 'jose';
import Provider from 'oidc-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FederatedLogin, FederatedLoginOptions } from '../../src/federated/login.js';
import { createFederatedLogin } from '../../src/federated/login.js';
import {
  createMemoryLoginTransactionStore,
  createMemoryUserStore,
} from '../../src/federated/memory-store.js';
import type { LoginTransaction, LoginTransactionStore, UserStore } from '../../src/federated/storage.js';

// A real OpenID Provider (panva/oidc-provider) in this process, on loopback. Its development interactions
// stand in for the upstream login page: the "browser" below posts the login and consent forms with cookies.
const REDIRECT_URI = 'http://127.0.0.1:1/federated/callback';
let server: Server;
let issuer = '';

beforeAll(async () => {
  server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  const provider = new Provider(issuer, {
    jwks: { keys: [{ ...(await exportJWK(privateKey)), kid: 'upstream-1', alg: 'ES256', use: 'sig' }] },
    enabledJWA: { idTokenSigningAlgValues: ['ES256'] },
    clients: [
      {
        client_id: 'keyhold-host',
        client_secret: 'a-long-client-secret-for-the-test-provider',
        redirect_uris: [REDIRECT_URI],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        id_token_signed_response_alg: 'ES256',
      },
    ],
    cookies: { keys: ['test-cookie-key'] },
    claims: { openid: ['sub'], email: ['email'] },
    findAccount: async (_ctx, accountId) => ({
      accountId,
      claims: async () => ({ sub: accountId, email: `${accountId}@upstream.example` }),
    }),
  });
  server.on('request', provider.callback());
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** A minimal browser: follows redirects by hand (stopping at the host's callback) and keeps cookies. */
function createBrowser(): { visit(url: string, form?: Record<string, string>): Promise<Response> } {
  const cookies = new Map<string, string>();
  return {
    async visit(url, form) {
      const response = await fetch(url, {
        method: form ? 'POST' : 'GET',
        redirect: 'manual',
        headers: {
          cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join('; '),
          ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        },
        ...(form ? { body: new URLSearchParams(form).toString() } : {}),
      });
      for (const line of response.headers.getSetCookie()) {
        const [pair] = line.split(';');
        const separator = pair?.indexOf('=') ?? -1;
        if (pair && separator > 0) cookies.set(pair.slice(0, separator), pair.slice(separator + 1));
      }
      return response;
    },
  };
}

/** Signs `account` in at the upstream provider from `startUrl`; returns the callback URL the browser lands on. */
async function signInUpstream(startUrl: string, account: string, decision: 'approve' | 'abort' = 'approve') {
  const browser = createBrowser();
  let location = startUrl;
  for (let step = 0; step < 12; step++) {
    if (location.startsWith(REDIRECT_URI)) return location;
    const interaction = /\/interaction\/([^/?]+)$/.exec(new URL(location, issuer).pathname);
    let response: Response;
    if (interaction) {
      const page = await (await browser.visit(new URL(location, issuer).href)).text();
      if (decision === 'abort') {
        response = await browser.visit(new URL(`/interaction/${interaction[1]}/abort`, issuer).href);
      } else {
        const prompt = page.includes('name="login"') ? 'login' : 'consent';
        response = await browser.visit(new URL(location, issuer).href, {
          prompt,
          login: account,
          password: 'x',
        });
      }
    } else {
      response = await browser.visit(new URL(location, issuer).href);
    }
    const next = response.headers.get('location');
    if (!next) throw new Error(`no redirect at ${location}: ${response.status} ${await response.text()}`);
    location = new URL(next, issuer).href;
  }
  throw new Error('too many redirects');
}

function setup(overrides: Partial<FederatedLoginOptions> = {}): {
  login: FederatedLogin;
  userStore: UserStore;
  clock: ReturnType<typeof createManualClock>;
} {
  const userStore = createMemoryUserStore();
  const clock = createManualClock();
  const login = createFederatedLogin({
    providers: [
      {
        id: 'upstream',
        issuer,
        clientId: 'keyhold-host',
        clientSecret: 'a-long-client-secret-for-the-test-provider',
        redirectUri: REDIRECT_URI,
        scope: 'openid email',
        allowInsecureRequests: true,
      },
    ],
    userStore,
    clock,
    ...overrides,
  });
  return { login, userStore, clock };
}

describe('federated login against a real OpenID Provider: discovery, PKCE, state, nonce, id_token', () => {
  it('starts with an authorization URL carrying state, nonce and an S256 PKCE challenge', async () => {
    const { login } = setup();
    const { url, state } = await login.start('upstream');
    const params = new URL(url).searchParams;
    expect(url.startsWith(`${issuer}/auth?`)).toBe(true);
    expect(params.get('client_id')).toBe('keyhold-host');
    expect(params.get('redirect_uri')).toBe(REDIRECT_URI);
    expect(params.get('response_type')).toBe('code');
    expect(params.get('scope')).toBe('openid email');
    expect(params.get('state')).toBe(state);
    expect(params.get('nonce')).toMatch(/^[\w-]{20,}$/);
    expect(params.get('code_challenge_method')).toBe('S256');
    expect(params.get('code_challenge')).toMatch(/^[\w-]{43}$/);
  });

  it('the first login provisions a local user; the next login of the same upstream sub returns the same id', async () => {
    const { login, userStore } = setup();
    const first = await login.start('upstream', { returnTo: '/tenant/demo/authorize?client_id=x' });
    const callback = await signInUpstream(first.url, 'alice');
    const result = await login.complete(callback, { state: first.state });
    expect(result).toMatchObject({
      ok: true,
      created: true,
      providerId: 'upstream',
      identity: { issuer, subject: 'alice' },
      returnTo: '/tenant/demo/authorize?client_id=x',
      claims: { sub: 'alice', iss: issuer, aud: 'keyhold-host' },
    });
    if (!result.ok) throw new Error('unreachable');
    expect(await userStore.findUser({ issuer, subject: 'alice' })).toBe(result.userId);

    const second = await login.start('upstream');
    const again = await login.complete(await signInUpstream(second.url, 'alice'), { state: second.state });
    expect(again).toMatchObject({ ok: true, created: false, userId: result.userId });

    const third = await login.start('upstream');
    const bob = await login.complete(await signInUpstream(third.url, 'bob'), { state: third.state });
    expect(bob).toMatchObject({ ok: true, created: true });
    expect(bob.ok && bob.userId).not.toBe(result.userId);
  });

  it('a callback is bound to the browser that started it: another state is invalid_state', async () => {
    const { login } = setup();
    const victim = await login.start('upstream');
    const attacker = await login.start('upstream');
    const attackerCallback = await signInUpstream(attacker.url, 'mallory');
    expect(await login.complete(attackerCallback, { state: victim.state })).toMatchObject({
      ok: false,
      error: 'invalid_state',
    });
  });

  it('a callback is single-use: replaying it is invalid_state', async () => {
    const { login } = setup();
    const started = await login.start('upstream');
    const callback = await signInUpstream(started.url, 'carol');
    expect(await login.complete(callback, { state: started.state })).toMatchObject({ ok: true });
    expect(await login.complete(callback, { state: started.state })).toMatchObject({
      ok: false,
      error: 'invalid_state',
    });
  });

  it('a login not completed within the transaction lifetime (600 s) is invalid_state', async () => {
    const { login, clock } = setup();
    const started = await login.start('upstream');
    const callback = await signInUpstream(started.url, 'dave');
    clock.advance(600_000);
    expect(await login.complete(callback, { state: started.state })).toMatchObject({
      ok: false,
      error: 'invalid_state',
    });
  });

  it('a tampered authorization code fails at the provider (invalid_response), and provisions nobody', async () => {
    const { login, userStore } = setup();
    const started = await login.start('upstream');
    const callback = new URL(await signInUpstream(started.url, 'erin'));
    callback.searchParams.set('code', 'not-the-code');
    expect(await login.complete(callback, { state: started.state })).toMatchObject({
      ok: false,
      error: 'invalid_response',
    });
    expect(await userStore.findUser({ issuer, subject: 'erin' })).toBeUndefined();
  });

  // A store that hands back a transaction altered after the login started, to prove what is checked.
  function alteringStore(change: Partial<LoginTransaction>): LoginTransactionStore {
    const inner = createMemoryLoginTransactionStore();
    return {
      save: (transaction) => inner.save(transaction),
      consume: async (id, now) => {
        const found = await inner.consume(id, now);
        return found && { ...found, ...change };
      },
    };
  }

  it.each([
    [
      'the id_token nonce must match the one sent (invalid_response)',
      { nonce: 'another-nonce-value-0123456789' },
    ],
    ['the PKCE verifier must match the challenge (invalid_response)', { codeVerifier: 'x'.repeat(43) }],
  ])('%s', async (_rule, change) => {
    const { login, userStore } = setup({ transactionStore: alteringStore(change) });
    const started = await login.start('upstream');
    const callback = await signInUpstream(started.url, 'grace');
    expect(await login.complete(callback, { state: started.state })).toMatchObject({
      ok: false,
      error: 'invalid_response',
    });
    expect(await userStore.findUser({ issuer, subject: 'grace' })).toBeUndefined();
  });

  it('the user refusing upstream is upstream_error with the provider error code', async () => {
    const { login } = setup();
    const started = await login.start('upstream');
    const callback = await signInUpstream(started.url, 'frank', 'abort');
    expect(await login.complete(callback, { state: started.state })).toMatchObject({
      ok: false,
      error: 'upstream_error',
      upstreamError: 'access_denied',
    });
  });
});

describe('options are validated at creation', () => {
  const base = { id: 'p', clientId: 'c', redirectUri: 'https://host.example/cb' };
  it.each([
    ['an http issuer off loopback', [{ ...base, issuer: 'http://idp.example', allowInsecureRequests: true }]],
    ['an http issuer without allowInsecureRequests', [{ ...base, issuer: 'http://127.0.0.1:9' }]],
    ['a scope without openid', [{ ...base, issuer: 'https://idp.example', scope: 'email' }]],
    ['duplicate ids', [base, base].map((provider) => ({ ...provider, issuer: 'https://idp.example' }))],
    ['no provider', []],
  ])('refuses %s', (_case, providers) => {
    expect(() => createFederatedLogin({ providers, userStore: createMemoryUserStore() })).toThrow(
      expect.objectContaining({ name: 'OAuthCoreError', code: 'ERR_INVALID_OPTIONS' }),
    );
  });
});
