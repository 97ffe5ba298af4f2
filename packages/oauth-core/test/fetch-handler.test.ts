import { describe, expect, it } from 'vitest';
import { publicCodeExchangeForm } from '../../../test-support/code-exchange-form.js';
import type { AuthorizationServerOptions } from '../src/index.js';
import { createTestServer, pkce, REDIRECT_URI, USER } from './helpers.js';

async function fetchServer(
  baseUrl = 'https://auth.example',
  options: Partial<AuthorizationServerOptions> = {},
) {
  const t = await createTestServer({ options: { baseUrl, ...options } });
  const call = (path: string, init: RequestInit = {}, userId?: string) =>
    t.server.fetch(
      new Request(`${new URL(baseUrl).origin}${path}`, init),
      userId === undefined ? {} : { userId },
    );
  return { ...t, call };
}

const form = (fields: Record<string, string>): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(fields).toString(),
});

describe('fetch: one web-standard handler routes every endpoint of every tenant', () => {
  it('runs discovery → registration → authorization code → token → introspection through fetch alone', async () => {
    const { call } = await fetchServer();
    const metadata = await call('/.well-known/oauth-authorization-server/tenant/demo');
    expect(metadata.status).toBe(200);
    const as = (await metadata.json()) as Record<string, string>;
    expect(as['issuer']).toBe('https://auth.example/tenant/demo');
    const registered = await call(new URL(as['registration_endpoint']!).pathname, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        redirect_uris: [REDIRECT_URI],
        token_endpoint_auth_method: 'none',
        client_name: 'Web',
      }),
    });
    expect(registered.status).toBe(201);
    const { client_id: clientId } = (await registered.json()) as { client_id: string };
    const { verifier, challenge } = pkce();
    const authorize = new URL(as['authorization_endpoint']!);
    authorize.search = new URLSearchParams({
      client_id: clientId,
      response_type: 'code',
      redirect_uri: REDIRECT_URI,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      scope: 'mcp:tools',
      state: 's',
    }).toString();
    const toConsent = await call(`${authorize.pathname}${authorize.search}`, { redirect: 'manual' }, USER);
    expect(toConsent.status).toBe(302);
    const consentUrl = new URL(toConsent.headers.get('location')!);
    const page = await call(`${consentUrl.pathname}${consentUrl.search}`, {}, USER);
    expect(page.status).toBe(200);
    const cookie = (page.headers.get('set-cookie') ?? '').split(';', 1)[0]!;
    const csrf = /name="csrf_token" value="([^"]+)"/.exec(await page.text())![1]!;
    const decided = await call(
      consentUrl.pathname,
      {
        ...form({ req: consentUrl.searchParams.get('req')!, decision: 'approve', csrf_token: csrf }),
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
      },
      USER,
    );
    expect(decided.status).toBe(302);
    const code = new URL(decided.headers.get('location')!).searchParams.get('code')!;
    const token = await call(
      new URL(as['token_endpoint']!).pathname,
      form(publicCodeExchangeForm(code, verifier, clientId, REDIRECT_URI)),
    );
    expect(token.status).toBe(200);
    expect(token.headers.get('cache-control')).toBe('no-store');
    const { access_token: accessToken } = (await token.json()) as { access_token: string };
    const introspected = await call(
      new URL(as['introspection_endpoint']!).pathname,
      form({ token: accessToken, client_id: clientId }),
    );
    expect(introspected.status).toBeLessThan(500);
    const jwks = await call(new URL(as['jwks_uri']!).pathname);
    expect(((await jwks.json()) as { keys: unknown[] }).keys).toHaveLength(1);
  });

  it('serves the OpenID configuration at both well-known forms', async () => {
    const { call } = await fetchServer();
    for (const path of [
      '/.well-known/openid-configuration/tenant/demo',
      '/tenant/demo/.well-known/openid-configuration',
      '/tenant/demo/.well-known/oauth-authorization-server',
    ]) {
      expect((await call(path)).status, path).toBe(200);
    }
  });

  it('answers 404 for a path it does not own and for an unknown tenant, 405 with Allow for a wrong method', async () => {
    const { call } = await fetchServer();
    expect((await call('/somewhere/else')).status).toBe(404);
    expect((await call('/tenant/demo/nothing')).status).toBe(404);
    expect((await call('/tenant/nobody/.well-known/jwks.json')).status).toBe(404);
    const wrong = await call('/tenant/demo/token');
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('POST, OPTIONS');
  });

  it('answers 413 for a body over bodyLimitBytes, before any handler runs', async () => {
    const { call } = await fetchServer('https://auth.example', { bodyLimitBytes: 100 });
    const response = await call('/tenant/demo/token', form({ grant_type: 'x'.repeat(200) }));
    expect(response.status).toBe(413);
  });

  it('takes the user from resolveUserId when fetch is not told (else the browser is sent to log in)', async () => {
    const { call } = await fetchServer('https://auth.example', {
      resolveUserId: (request) => request.headers.get('x-test-user') ?? undefined,
    });
    const registered = await call('/tenant/demo/register', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none' }),
    });
    const { client_id: clientId } = (await registered.json()) as { client_id: string };
    const query = new URLSearchParams({
      client_id: clientId,
      response_type: 'code',
      redirect_uri: REDIRECT_URI,
      code_challenge: pkce().challenge,
      code_challenge_method: 'S256',
    });
    const withUser = await call(`/tenant/demo/authorize?${query}`, { headers: { 'x-test-user': USER } });
    expect(new URL(withUser.headers.get('location')!).pathname).toBe('/tenant/demo/consent');
    const anonymous = await call(`/tenant/demo/authorize?${query}`);
    expect(new URL(anonymous.headers.get('location')!).pathname).toBe('/tenant/demo/login');
  });
});

describe('fetch: routes derive from baseUrl and resourcePath (no frozen route table)', () => {
  it('serves everything under the base path of baseUrl', async () => {
    const { call } = await fetchServer('https://auth.example/auth');
    const metadata = await call('/.well-known/oauth-authorization-server/auth/tenant/demo');
    expect(metadata.status).toBe(200);
    expect(((await metadata.json()) as { issuer: string }).issuer).toBe(
      'https://auth.example/auth/tenant/demo',
    );
    expect((await call('/auth/tenant/demo/.well-known/jwks.json')).status).toBe(200);
    expect((await call('/tenant/demo/.well-known/jwks.json')).status).toBe(404);
  });

  it('serves the protected-resource metadata the 401 challenge names, for a custom resourcePath', async () => {
    const { server, call } = await fetchServer('https://auth.example', { resourcePath: '/api/mcp' });
    const check = await server.verifyAccessToken('demo', undefined);
    if (check.ok) throw new Error('expected a challenge');
    const challenge = check.result.headers['www-authenticate'] ?? '';
    const metadataUrl = new URL(/resource_metadata="([^"]+)"/.exec(challenge)![1]!);
    const metadata = await call(metadataUrl.pathname);
    expect(metadata.status).toBe(200);
    expect(((await metadata.json()) as { resource: string }).resource).toBe(
      'https://auth.example/tenant/demo/api/mcp',
    );
    expect((await call('/.well-known/oauth-protected-resource/tenant/demo/mcp')).status).toBe(404);
  });
});

describe('fetch: CORS on the JSON endpoints (preflight 204, configurable origins)', () => {
  const preflight = (origin: string): RequestInit => ({
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'content-type',
    },
  });

  it('answers a preflight on token, revocation, introspection and metadata with 204 for any origin by default', async () => {
    const { call } = await fetchServer();
    for (const path of [
      '/tenant/demo/token',
      '/tenant/demo/revoke',
      '/tenant/demo/introspect',
      '/.well-known/oauth-authorization-server/tenant/demo',
      '/tenant/demo/.well-known/jwks.json',
    ]) {
      const response = await call(path, preflight('https://app.example'));
      expect(response.status, path).toBe(204);
      expect(response.headers.get('access-control-allow-origin'), path).toBe('*');
      expect(response.headers.get('access-control-allow-headers'), path).toContain('content-type');
      expect(response.headers.get('access-control-max-age'), path).toBe('600');
    }
  });

  it('answers the registration preflight only for origins allowed to register', async () => {
    const closed = await fetchServer();
    expect((await closed.call('/tenant/demo/register', preflight('https://app.example'))).status).toBe(403);
    const open = await fetchServer('https://auth.example', { allowedOrigins: ['https://app.example'] });
    const allowed = await open.call('/tenant/demo/register', preflight('https://app.example'));
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://app.example');
  });

  it('with a list of origins, echoes a listed origin (with Vary) and refuses others', async () => {
    const { call } = await fetchServer('https://auth.example', {
      cors: { allowedOrigins: ['https://app.example'], maxAgeSeconds: 60 },
    });
    const allowed = await call('/tenant/demo/token', preflight('https://app.example'));
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://app.example');
    expect(allowed.headers.get('vary')).toBe('origin');
    expect(allowed.headers.get('access-control-max-age')).toBe('60');
    expect((await call('/tenant/demo/token', preflight('https://evil.example'))).status).toBe(403);
    const answer = await call('/tenant/demo/token', {
      ...form({ grant_type: 'client_credentials' }),
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' },
    });
    expect(answer.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('does not answer preflights on the browser pages (authorize, consent)', async () => {
    const { call } = await fetchServer();
    expect((await call('/tenant/demo/authorize', preflight('https://app.example'))).status).toBe(405);
  });
});
