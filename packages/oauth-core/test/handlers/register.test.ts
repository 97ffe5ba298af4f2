import { sha256Base64url } from '@keyhold/core';
import { describe, expect, it } from 'vitest';
import { BASE_URL, createTestServer, json } from '../helpers.js';

async function register(body: unknown, contentType = 'application/json') {
  const t = await createTestServer();
  const result = await t.server.register(
    {
      method: 'POST',
      path: '/tenant/demo/register',
      query: '',
      headers: { 'content-type': contentType },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    },
    'demo',
  );
  return { t, result, body: json(result) };
}

describe('POST /register (RFC 7591)', () => {
  it('registers a confidential client: 201, a secret shown once, client_secret_expires_at 0, stored as a hash', async () => {
    const { t, result, body } = await register({
      redirect_uris: ['https://app.example/cb'],
      client_name: 'App',
    });
    expect(result.status).toBe(201);
    expect(result.headers['cache-control']).toBe('no-store');
    expect(body).toMatchObject({
      redirect_uris: ['https://app.example/cb'],
      client_name: 'App',
      token_endpoint_auth_method: 'client_secret_basic',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      client_secret_expires_at: 0,
    });
    const stored = await t.storage.clients.get('demo', String(body.client_id));
    expect(stored?.clientSecretHash).toBe(sha256Base64url(String(body.client_secret)));
    expect(JSON.stringify(stored)).not.toContain(String(body.client_secret));
  });

  it('registers a public client only with token_endpoint_auth_method none, and issues no secret', async () => {
    const { result, body } = await register({
      redirect_uris: ['http://127.0.0.1/cb'],
      token_endpoint_auth_method: 'none',
    });
    expect(result.status).toBe(201);
    expect(body.client_secret).toBeUndefined();
    expect(body.client_secret_expires_at).toBeUndefined();
  });

  it.each([
    ['a non-loopback http redirect', 'http://app.example/cb'],
    ['a fragment', 'https://app.example/cb#x'],
    ['a relative URI', '/cb'],
    ['a javascript: URI', 'javascript:alert(1)'],
    ['a private-use scheme without a dot', 'myapp:/cb'],
  ])('refuses %s with invalid_redirect_uri', async (_, uri) => {
    const { result, body } = await register({ redirect_uris: [uri] });
    expect(result.status).toBe(400);
    expect(body.error).toBe('invalid_redirect_uri');
  });

  it('accepts a reverse-domain private-use scheme (RFC 8252 §7.1)', async () => {
    const { result } = await register({
      redirect_uris: ['com.example.app:/cb'],
      token_endpoint_auth_method: 'none',
    });
    expect(result.status).toBe(201);
  });

  it('refuses missing redirect_uris for the code grant with invalid_redirect_uri', async () => {
    expect((await register({ client_name: 'x' })).body.error).toBe('invalid_redirect_uri');
  });

  it.each([
    [
      'an unknown auth method',
      { redirect_uris: ['https://a.example/cb'], token_endpoint_auth_method: 'private_key_jwt' },
    ],
    ['an unknown grant type', { redirect_uris: ['https://a.example/cb'], grant_types: ['password'] }],
    ['a wrong type', { redirect_uris: 'https://a.example/cb' }],
    [
      'a public client with client_credentials',
      { token_endpoint_auth_method: 'none', grant_types: ['client_credentials'] },
    ],
    [
      'client_secret_post with authorization_code',
      { redirect_uris: ['https://a.example/cb'], token_endpoint_auth_method: 'client_secret_post' },
    ],
    ['a malformed scope', { redirect_uris: ['https://a.example/cb'], scope: 'a "b"' }],
  ])('refuses %s with invalid_client_metadata', async (_, metadata) => {
    const { result, body } = await register(metadata);
    expect(result.status).toBe(400);
    expect(body.error).toBe('invalid_client_metadata');
  });

  it('refuses a body that is not JSON, or not declared as JSON', async () => {
    expect((await register('{not json')).body.error).toBe('invalid_client_metadata');
    expect((await register({ redirect_uris: ['https://a.example/cb'] }, 'text/plain')).body.error).toBe(
      'invalid_client_metadata',
    );
  });

  it('registers a client_credentials client with a scope and no redirect URIs', async () => {
    const { result, body } = await register({
      grant_types: ['client_credentials'],
      token_endpoint_auth_method: 'client_secret_post',
      scope: 'reports:read',
    });
    expect(result.status).toBe(201);
    expect(body).toMatchObject({
      grant_types: ['client_credentials'],
      response_types: [],
      scope: 'reports:read',
    });
  });
});

describe('POST /register: browser requests only from allowed origins', () => {
  const metadata = { redirect_uris: ['https://app.example/cb'], token_endpoint_auth_method: 'none' };
  async function registerFrom(
    origin: string | undefined,
    options: Parameters<typeof createTestServer>[0] = {},
  ) {
    const t = await createTestServer(options);
    return t.server.register(
      {
        method: 'POST',
        path: '/tenant/demo/register',
        query: '',
        headers: { 'content-type': 'application/json', ...(origin === undefined ? {} : { origin }) },
        body: JSON.stringify(metadata),
      },
      'demo',
    );
  }

  it('a page on another origin (or a DNS-rebinding name, or the opaque origin) gets 403 invalid_request', async () => {
    for (const origin of ['https://evil.example', 'http://rebind.attacker.example:8787', 'null']) {
      const result = await registerFrom(origin);
      expect(result.status, origin).toBe(403);
      expect(json(result)).toEqual({
        error: 'invalid_request',
        error_description: 'cross-origin request refused',
      });
      expect(result.headers['cache-control']).toBe('no-store');
    }
  });

  it('requests without Origin (native and server-side clients) and from the server origin register', async () => {
    expect((await registerFrom(undefined)).status).toBe(201);
    expect((await registerFrom(BASE_URL)).status).toBe(201);
  });

  it('allowedOrigins admits browser-based clients; "any" admits every origin', async () => {
    const options = { options: { allowedOrigins: ['https://inspector.example'] } };
    expect((await registerFrom('https://inspector.example', options)).status).toBe(201);
    expect((await registerFrom('https://other.example', options)).status).toBe(403);
    expect((await registerFrom('https://other.example', { options: { allowedOrigins: 'any' } })).status).toBe(
      201,
    );
  });

  it('allowedOrigins is validated at creation: entries must be bare http(s) origins', async () => {
    for (const bad of [['https://a.example/path'], ['not a url'], ['ftp://a.example']]) {
      await expect(createTestServer({ options: { allowedOrigins: bad } })).rejects.toMatchObject({
        code: 'invalid_options',
      });
    }
  });
});
