import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ElicitationRequiredError } from '../../src/index.js';
import { s256Challenge } from '../../src/pkce.js';
import { ACME_AUTHORIZE, ACME_ASK as ask, elicitationOf, getRequest, makeHarness } from '../fixtures.js';

const server = setupServer();
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterAll(() => server.close());

async function raise(harness: ReturnType<typeof makeHarness>): Promise<ElicitationRequiredError> {
  return await elicitationOf(harness.broker.requestToken(ask, harness.context));
}

describe('The connect step redirects the asking user to the provider with PKCE S256 and an opaque state', () => {
  it('builds the authorization request', async () => {
    const harness = makeHarness();
    const error = await raise(harness);
    const result = await harness.broker.connect(getRequest(error.elicitationUrl, 'user-1'));
    expect(result.status).toBe(302);
    expect(result.headers['cache-control']).toBe('no-store');
    const url = new URL(result.headers.location!);
    expect(url.origin + url.pathname).toBe(ACME_AUTHORIZE);
    expect(url.searchParams.get('response_type')).toBe('code');
    expect(url.searchParams.get('client_id')).toBe('acme-client');
    expect(url.searchParams.get('redirect_uri')).toBe('https://host.example/auth/oauth/callback');
    expect(url.searchParams.get('scope')).toBe('read');
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(url.searchParams.get('state')).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  describe('Issue 15 item 7: the third-party state carries no readable session or user id', () => {
    it('the state is exactly 43 base64url characters (32 random bytes) and names no user, tenant or elicitation', async () => {
      const harness = makeHarness();
      const error = await raise(harness);
      const result = await harness.broker.connect(getRequest(error.elicitationUrl, 'user-1'));
      const state = new URL(result.headers.location!).searchParams.get('state')!;
      expect(state).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(Buffer.from(state, 'base64url')).toHaveLength(32);
      // Neither as sent nor decoded (base64url, base64, as UTF-8 or Latin-1) does it carry an identifier.
      const readings = [
        state,
        Buffer.from(state, 'base64url').toString('utf8'),
        Buffer.from(state, 'base64url').toString('latin1'),
        Buffer.from(state, 'base64').toString('utf8'),
        decodeURIComponent(state),
      ];
      for (const secret of ['user-1', 'tenant-a', error.elicitationId, 'module-1', 'acme']) {
        for (const reading of readings) expect(reading).not.toContain(secret);
      }
      expect(() => JSON.parse(Buffer.from(state, 'base64url').toString('utf8'))).toThrow();
    });

    it('two connects of one elicitation get unrelated states', async () => {
      const harness = makeHarness();
      const error = await raise(harness);
      const stateOf = async () =>
        new URL(
          (await harness.broker.connect(getRequest(error.elicitationUrl, 'user-1'))).headers.location!,
        ).searchParams.get('state');
      expect(await stateOf()).not.toBe(await stateOf());
    });

    it('everything the callback needs is stored server-side under the SHA-256 of the state, for five minutes', async () => {
      const harness = makeHarness();
      const error = await raise(harness);
      const result = await harness.broker.connect(getRequest(error.elicitationUrl, 'user-1'));
      const url = new URL(result.headers.location!);
      const { sha256Base64url } = await import('@keyhold/internal');
      const pending = await harness.storage.pending.consumeAuthorization(
        sha256Base64url(url.searchParams.get('state')!),
        harness.clock.now(),
      );
      expect(pending).toEqual({
        nonceHash: sha256Base64url(url.searchParams.get('state')!),
        elicitationId: error.elicitationId,
        tenantId: 'tenant-a',
        userId: 'user-1',
        toolModuleId: 'module-1',
        provider: 'acme',
        scopes: ['read'],
        codeVerifier: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
        createdAt: harness.clock.now(),
        expiresAt: harness.clock.now() + 5 * 60_000,
      });
    });
  });

  it('stores the PKCE verifier whose S256 challenge was sent, under the hash of the state', async () => {
    const harness = makeHarness();
    const error = await raise(harness);
    const result = await harness.broker.connect(getRequest(error.elicitationUrl, 'user-1'));
    const url = new URL(result.headers.location!);
    const { sha256Base64url } = await import('@keyhold/internal');
    const pending = await harness.storage.pending.consumeAuthorization(
      sha256Base64url(url.searchParams.get('state')!),
      harness.clock.now(),
    );
    expect(pending?.codeVerifier).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(s256Challenge(pending!.codeVerifier)).toBe(url.searchParams.get('code_challenge'));
  });

  it('Microsoft-style providers also request offline_access, which is not part of the grant key', async () => {
    const harness = makeHarness({
      providers: [{ id: 'microsoft', clientId: 'ms-client', clientSecret: 'ms-secret' }],
    });
    const error = await elicitationOf(
      harness.broker.requestToken({ ask: 'oauth', provider: 'microsoft', scopes: [] }, harness.context),
    );
    expect(error.scopes).toEqual(['User.Read', 'email', 'openid', 'profile']);
    const result = await harness.broker.connect(getRequest(error.elicitationUrl, 'user-1'));
    const url = new URL(result.headers.location!);
    expect(url.hostname).toBe('login.microsoftonline.com');
    expect(url.searchParams.get('scope')?.split(' ').sort()).toEqual(
      ['User.Read', 'email', 'offline_access', 'openid', 'profile'].sort(),
    );
  });

  it('the link can be opened twice; each visit mints a new state', async () => {
    const harness = makeHarness();
    const error = await raise(harness);
    const first = await harness.broker.connect(getRequest(error.elicitationUrl, 'user-1'));
    const second = await harness.broker.connect(getRequest(error.elicitationUrl, 'user-1'));
    expect(second.status).toBe(302);
    expect(new URL(first.headers.location!).searchParams.get('state')).not.toBe(
      new URL(second.headers.location!).searchParams.get('state'),
    );
  });
});

describe('The connect step checks the browser user is the user who asked (phishing rule)', () => {
  it('refuses a different signed-in user with 403 and stores no pending authorization', async () => {
    const harness = makeHarness();
    const error = await raise(harness);
    const result = await harness.broker.connect(getRequest(error.elicitationUrl, 'attacker'));
    expect(result.status).toBe(403);
    expect(result.headers['content-type']).toContain('text/html');
    expect(result.body).toContain('another account');
    expect(result.headers.location).toBeUndefined();
  });

  it('asks an anonymous browser to sign in first (401)', async () => {
    const harness = makeHarness();
    const error = await raise(harness);
    const result = await harness.broker.connect(getRequest(error.elicitationUrl));
    expect(result.status).toBe(401);
    expect(result.headers.location).toBeUndefined();
  });

  it('answers 404 for an unknown or expired elicitation, and 400 without an id', async () => {
    const harness = makeHarness();
    const error = await raise(harness);
    expect(
      (
        await harness.broker.connect(
          getRequest('https://host.example/auth/oauth/connect?elicitation_id=x', 'user-1'),
        )
      ).status,
    ).toBe(404);
    expect(
      (await harness.broker.connect(getRequest('https://host.example/auth/oauth/connect', 'user-1'))).status,
    ).toBe(400);
    harness.clock.advance(10 * 60_000);
    expect((await harness.broker.connect(getRequest(error.elicitationUrl, 'user-1'))).status).toBe(404);
  });

  it('answers 405 to anything but GET', async () => {
    const harness = makeHarness();
    const error = await raise(harness);
    const result = await harness.broker.connect({
      ...getRequest(error.elicitationUrl, 'user-1'),
      method: 'POST',
    });
    expect(result.status).toBe(405);
    expect(result.headers.allow).toBe('GET');
    // The refusal is still a page: no framing, no caching.
    expect(result.headers['x-frame-options']).toBe('DENY');
    expect(result.headers['cache-control']).toBe('no-store');
  });

  it('refuses HEAD, which must not store a pending authorization', async () => {
    const harness = makeHarness();
    const error = await raise(harness);
    let stored = 0;
    const put = harness.storage.pending.putAuthorization.bind(harness.storage.pending);
    harness.storage.pending.putAuthorization = async (record, maxPerUser) => {
      stored++;
      return put(record, maxPerUser);
    };
    const result = await harness.broker.connect({
      ...getRequest(error.elicitationUrl, 'user-1'),
      method: 'HEAD',
    });
    expect(result.status).toBe(405);
    expect(stored).toBe(0);
  });
});

describe('The connect step refuses cross-origin browser requests', () => {
  it('a request whose Origin is not the host (a cross-site fetch or form) gets 403 and no redirect', async () => {
    const harness = makeHarness();
    const error = await raise(harness);
    for (const origin of ['https://evil.example', 'null', 'http://rebind.attacker.example:8787']) {
      const request = getRequest(error.elicitationUrl, 'user-1');
      const result = await harness.broker.connect({ ...request, headers: { origin } });
      expect(result.status, origin).toBe(403);
      expect(result.body).toContain('cross-origin request refused');
      expect(result.headers.location).toBeUndefined();
    }
  });

  it("the host's own origin, and a plain navigation without Origin, proceed to the provider", async () => {
    const harness = makeHarness();
    const error = await raise(harness);
    const request = getRequest(error.elicitationUrl, 'user-1');
    const own = await harness.broker.connect({ ...request, headers: { origin: 'https://host.example' } });
    expect(own.status).toBe(302);
    expect((await harness.broker.connect(request)).status).toBe(302);
  });
});
