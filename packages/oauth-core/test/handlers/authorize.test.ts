import { describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers.js';
import {
  createTestServer,
  decideConsent,
  get,
  ISSUER,
  location,
  pkce,
  REDIRECT_URI,
  RESOURCE,
  registerClient,
  USER,
} from '../helpers.js';

async function setup(overrides: Parameters<typeof createTestServer>[0] = {}) {
  const t = await createTestServer(overrides);
  const client = await registerClient(t.server, { token_endpoint_auth_method: 'none' });
  const { challenge } = pkce();
  const params = {
    client_id: client.client_id,
    response_type: 'code',
    redirect_uri: REDIRECT_URI,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 'st-1',
    scope: 'openid',
  };
  const authorize = (query: Record<string, string | undefined>, userId: string | null = USER) =>
    t.server.authorize(get('/tenant/demo/authorize', { ...params, ...query }, userId ?? undefined), 'demo');
  return { t, client, params, authorize };
}

async function consentOnce(t: TestServer, req: string) {
  return decideConsent(t.server, req, 'approve', USER);
}

describe('GET /authorize: received → session check (request validation)', () => {
  it('rejects response_type other than code by redirecting unsupported_response_type', async () => {
    const { authorize } = await setup();
    const target = location(await authorize({ response_type: 'token' }));
    expect(target.searchParams.get('error')).toBe('unsupported_response_type');
    expect(target.searchParams.get('state')).toBe('st-1');
    expect(target.searchParams.get('iss')).toBe(ISSUER);
  });

  it('a missing response_type is invalid_request, redirected', async () => {
    const { authorize } = await setup();
    expect(location(await authorize({ response_type: undefined })).searchParams.get('error')).toBe(
      'invalid_request',
    );
  });

  it('refuses a request object (request) with request_not_supported, redirected (OIDC Core §6)', async () => {
    const { authorize } = await setup();
    const target = location(await authorize({ request: 'eyJhbGciOiJub25lIn0.e30.' }));
    expect(target.origin + target.pathname).toBe(REDIRECT_URI);
    expect(target.searchParams.get('error')).toBe('request_not_supported');
    expect(target.searchParams.get('state')).toBe('st-1');
    expect(target.searchParams.get('iss')).toBe(ISSUER);
  });

  it('refuses a request_uri with request_uri_not_supported, redirected (RFC 9101)', async () => {
    const { authorize } = await setup();
    const target = location(await authorize({ request_uri: 'urn:ietf:params:oauth:request_uri:abc' }));
    expect(target.searchParams.get('error')).toBe('request_uri_not_supported');
    expect(target.searchParams.get('state')).toBe('st-1');
  });

  it('shows (never redirects) the error page for a request object sent with an unregistered redirect_uri', async () => {
    const { authorize } = await setup();
    const result = await authorize({ request: 'x', redirect_uri: 'https://evil.example/callback' });
    expect(result.status).toBe(400);
    expect(result.headers.location).toBeUndefined();
  });

  it('rejects the plain PKCE method', async () => {
    const { authorize } = await setup();
    const target = location(await authorize({ code_challenge_method: 'plain' }));
    expect(target.searchParams.get('error')).toBe('invalid_request');
    expect(target.searchParams.get('error_description')).toMatch(/S256/);
  });

  it('rejects a missing code_challenge', async () => {
    const { authorize } = await setup();
    const target = location(await authorize({ code_challenge: undefined }));
    expect(target.searchParams.get('error')).toBe('invalid_request');
  });

  it('shows (never redirects) an error for a redirect_uri that is not an exact match', async () => {
    const { authorize } = await setup();
    for (const redirect of [
      `${REDIRECT_URI}/`,
      'https://app.example/callback?x=1',
      'https://evil.example/callback',
    ]) {
      const result = await authorize({ redirect_uri: redirect });
      expect(result.status).toBe(400);
      expect(result.headers.location).toBeUndefined();
      expect(result.headers['content-type']).toMatch(/text\/html/);
    }
  });

  it('shows an error for an unknown client', async () => {
    const { authorize } = await setup();
    const result = await authorize({ client_id: 'nobody' });
    expect(result.status).toBe(400);
    expect(result.body).toContain('invalid_client');
    expect(result.headers.location).toBeUndefined();
  });

  it('escapes the description on the error page', async () => {
    const { authorize } = await setup();
    const result = await authorize({ client_id: undefined });
    expect(result.body).not.toContain('<script');
    expect(result.body).toContain('client_id is required');
  });

  it('matches a loopback redirect_uri with any port (RFC 8252 §7.3)', async () => {
    const t = await createTestServer();
    const client = await (await import('../helpers.js')).registerClient(t.server, {
      token_endpoint_auth_method: 'none',
      redirect_uris: ['http://127.0.0.1/cb', 'http://localhost/cb', 'http://[::1]/cb'],
    });
    t.tenant.firstPartyClientIds = [client.client_id];
    const { challenge } = pkce();
    for (const redirect of [
      'http://127.0.0.1:51234/cb',
      'http://localhost:8080/cb',
      'http://[::1]:9999/cb',
    ]) {
      const result = await t.server.authorize(
        get(
          '/tenant/demo/authorize',
          {
            client_id: client.client_id,
            response_type: 'code',
            redirect_uri: redirect,
            code_challenge: challenge,
            code_challenge_method: 'S256',
          },
          USER,
        ),
        'demo',
      );
      expect(result.status).toBe(302);
      expect(location(result).origin).toBe(new URL(redirect).origin);
    }
    const wrongPath = await t.server.authorize(
      get(
        '/tenant/demo/authorize',
        {
          client_id: client.client_id,
          response_type: 'code',
          redirect_uri: 'http://127.0.0.1:5000/other',
          code_challenge: challenge,
          code_challenge_method: 'S256',
        },
        USER,
      ),
      'demo',
    );
    expect(wrongPath.status).toBe(400);
  });

  it('rejects a resource the tenant does not serve with invalid_target (RFC 8707)', async () => {
    const { authorize } = await setup();
    const target = location(await authorize({ resource: 'https://other.example/mcp' }));
    expect(target.searchParams.get('error')).toBe('invalid_target');
  });

  it('compares resource indicators canonically: scheme and host case and a default port do not matter', async () => {
    const { authorize } = await setup();
    const upper = RESOURCE.replace('https://auth.example', 'HTTPS://Auth.EXAMPLE:443');
    const target = location(await authorize({ resource: upper }));
    expect(target.searchParams.get('error')).toBeNull();
    expect(target.pathname).toBe('/tenant/demo/consent');
  });

  it('keeps the path exact: another path, or one with a trailing slash, is invalid_target', async () => {
    const { authorize } = await setup();
    for (const resource of [`${RESOURCE}/`, RESOURCE.replace('/mcp', '/MCP'), `${RESOURCE}?x=1`]) {
      const target = location(await authorize({ resource }));
      expect(target.searchParams.get('error'), resource).toBe('invalid_target');
      // RFC 9207: the issuer rides on error responses too.
      expect(target.searchParams.get('iss'), resource).toBe(ISSUER);
    }
  });

  it('rejects a scope outside the tenant offer with invalid_scope', async () => {
    const { authorize } = await setup({ tenant: { scopesSupported: ['openid', 'mcp'] } });
    const target = location(await authorize({ scope: 'openid admin' }));
    expect(target.searchParams.get('error')).toBe('invalid_scope');
  });

  it('answers 404 for an unknown tenant', async () => {
    const { t, params } = await setup();
    const result = await t.server.authorize(get('/tenant/nope/authorize', params, USER), 'nope');
    expect(result.status).toBe(404);
  });
});

describe('GET /authorize: session check → redirected to login', () => {
  it('sends a browser without a session to the default loginUrl with return_to', async () => {
    const { authorize } = await setup();
    const target = location(await authorize({}, null));
    expect(`${target.origin}${target.pathname}`).toBe(`${ISSUER}/login`);
    const returnTo = new URL(target.searchParams.get('return_to') ?? '');
    expect(`${returnTo.origin}${returnTo.pathname}`).toBe(`${ISSUER}/authorize`);
    expect(returnTo.searchParams.get('state')).toBe('st-1');
  });

  it('uses the tenant loginUrl when configured', async () => {
    const { authorize } = await setup({ tenant: { loginUrl: 'https://login.example/sign-in?x=1' } });
    const target = location(await authorize({}, null));
    expect(target.origin + target.pathname).toBe('https://login.example/sign-in');
    expect(target.searchParams.get('x')).toBe('1');
    expect(target.searchParams.get('return_to')).toMatch(
      /^https:\/\/auth\.example\/tenant\/demo\/authorize\?/,
    );
  });

  it('a path-only loginUrl is taken relative to the issuer origin', async () => {
    const { authorize } = await setup({ tenant: { loginUrl: '/sign-in' } });
    const target = location(await authorize({}, null));
    expect(target.origin + target.pathname).toBe('https://auth.example/sign-in');
  });

  it('with prompt=none and no session, redirects login_required to the client', async () => {
    const { authorize } = await setup();
    const target = location(await authorize({ prompt: 'none' }, null));
    expect(target.origin + target.pathname).toBe(REDIRECT_URI);
    expect(target.searchParams.get('error')).toBe('login_required');
    expect(target.searchParams.get('state')).toBe('st-1');
  });

  it('single-user mode with a singleUserId skips login and uses the tenant owner', async () => {
    const { t, authorize } = await setup({
      tenant: { singleUserId: 'owner', firstPartyClientIds: [] },
      options: { singleUserMode: true },
    });
    const target = location(await authorize({}, null));
    expect(target.pathname).toBe('/tenant/demo/consent');
    const req = target.searchParams.get('req') ?? '';
    expect((await t.storage.pendingAuthorizations.get('demo', req))?.userId).toBe('owner');
  });

  it('single-user mode without singleUserId still sends to login', async () => {
    const { authorize } = await setup({ options: { singleUserMode: true } });
    expect(location(await authorize({}, null)).pathname).toBe('/tenant/demo/login');
  });

  it('a singleUserId alone (mode off) does not skip login', async () => {
    const { authorize } = await setup({ tenant: { singleUserId: 'owner' } });
    expect(location(await authorize({}, null)).pathname).toBe('/tenant/demo/login');
  });
});

describe('GET /authorize: session check → code issued', () => {
  it('a first-party client gets a code, state and iss at once (RFC 9207)', async () => {
    const t = await createTestServer();
    const client = await registerClient(t.server, { token_endpoint_auth_method: 'none' });
    t.tenant.firstPartyClientIds = [client.client_id];
    const { challenge } = pkce();
    const result = await t.server.authorize(
      get(
        '/tenant/demo/authorize',
        {
          client_id: client.client_id,
          response_type: 'code',
          redirect_uri: REDIRECT_URI,
          code_challenge: challenge,
          code_challenge_method: 'S256',
          state: 's',
        },
        USER,
      ),
      'demo',
    );
    const target = location(result);
    expect(target.origin + target.pathname).toBe(REDIRECT_URI);
    expect(target.searchParams.get('code')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(target.searchParams.get('state')).toBe('s');
    expect(target.searchParams.get('iss')).toBe(ISSUER);
  });

  it('a remembered consent that covers the scopes issues a code without the screen', async () => {
    const { t, authorize } = await setup();
    const first = location(await authorize({ scope: 'openid mcp' }));
    await consentOnce(t, first.searchParams.get('req') ?? '');
    const again = location(await authorize({ scope: 'mcp' }));
    expect(again.searchParams.get('code')).toMatch(/^[A-Za-z0-9_-]{32,}$/);
  });

  it('a remembered consent does not cover a wider scope set', async () => {
    const { t, authorize } = await setup();
    const first = location(await authorize({ scope: 'openid' }));
    await consentOnce(t, first.searchParams.get('req') ?? '');
    expect(location(await authorize({ scope: 'openid mcp' })).pathname).toBe('/tenant/demo/consent');
  });

  it('a remembered consent expires after 30 days', async () => {
    const { t, authorize } = await setup();
    const first = location(await authorize({}));
    await consentOnce(t, first.searchParams.get('req') ?? '');
    t.clock.advance(30 * 86_400_000 + 1000);
    expect(location(await authorize({})).pathname).toBe('/tenant/demo/consent');
  });

  it('prompt=consent forces the screen despite a remembered consent', async () => {
    const { t, authorize } = await setup();
    const first = location(await authorize({}));
    await consentOnce(t, first.searchParams.get('req') ?? '');
    expect(location(await authorize({ prompt: 'consent' })).pathname).toBe('/tenant/demo/consent');
  });
});

describe('GET /authorize: session check → pending authorization', () => {
  it('stashes the request for 10 minutes and redirects to /consent with req', async () => {
    const { t, authorize } = await setup();
    const target = location(await authorize({ resource: RESOURCE, nonce: 'n-1' }));
    expect(target.origin + target.pathname).toBe(`${ISSUER}/consent`);
    const pending = await t.storage.pendingAuthorizations.get('demo', target.searchParams.get('req') ?? '');
    expect(pending).toMatchObject({
      userId: USER,
      scope: 'openid',
      resources: [RESOURCE],
      nonce: 'n-1',
      state: 'st-1',
    });
    expect(pending?.expiresAt).toBe(t.clock.now() + 600_000);
  });

  it('prompt=none without consent redirects consent_required', async () => {
    const { authorize } = await setup();
    expect(location(await authorize({ prompt: 'none' })).searchParams.get('error')).toBe('consent_required');
  });
});
