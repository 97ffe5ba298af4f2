import { describe, expect, it } from 'vitest';
import { basic, createTestServer, get, json, postForm, registerClient } from '../helpers.js';

async function setup() {
  const t = await createTestServer();
  const client = await registerClient(t.server);
  return { t, client };
}

describe('bad input at /token gets the right OAuth error, never a 500', () => {
  it.each([
    ['a repeated parameter', 'grant_type=refresh_token&grant_type=authorization_code', 'invalid_request'],
    ['malformed percent-encoding', 'grant_type=%ZZ', 'invalid_request'],
    ['a missing grant_type', 'code=abc', 'invalid_request'],
    ['an unknown grant_type', 'grant_type=password&username=a&password=b', 'unsupported_grant_type'],
    ['an oversized value', `grant_type=refresh_token&refresh_token=${'a'.repeat(10_000)}`, 'invalid_request'],
    ['a __proto__ parameter', '__proto__=x&grant_type=client_credentials', 'invalid_client'],
    [
      'token exchange without client authentication',
      'grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Atoken-exchange',
      'invalid_client',
    ],
  ])('%s', async (_, body, error) => {
    const { t } = await setup();
    const result = await t.server.token(postForm('/tenant/demo/token', body), 'demo');
    expect(result.status).toBeGreaterThanOrEqual(400);
    expect(result.status).toBeLessThan(500);
    expect(json(result).error).toBe(error);
    expect(result.headers['cache-control']).toBe('no-store');
    expect(result.headers['content-type']).toMatch(/application\/json/);
  });

  it('a JSON body is invalid_request', async () => {
    const { t } = await setup();
    const result = await t.server.token(
      {
        method: 'POST',
        path: '/',
        query: '',
        headers: { 'content-type': 'application/json' },
        body: '{"grant_type":"x"}',
      },
      'demo',
    );
    expect(json(result).error).toBe('invalid_request');
  });

  it.each([
    ['a malformed Basic header', { authorization: 'Basic !!!' }],
    ['Basic without a colon', { authorization: `Basic ${Buffer.from('abc').toString('base64')}` }],
    [
      'Basic with bad percent-encoding',
      { authorization: `Basic ${Buffer.from('%ZZ:x').toString('base64')}` },
    ],
    [
      'Basic with a NUL in the client id',
      { authorization: `Basic ${Buffer.from('a\u0000b:x').toString('base64')}` },
    ],
    [
      'Basic with a percent-encoded escape',
      { authorization: `Basic ${Buffer.from('a:%1Bx').toString('base64')}` },
    ],
  ])('%s is invalid_client', async (_, headers) => {
    const { t } = await setup();
    const result = await t.server.token(
      postForm('/tenant/demo/token', { grant_type: 'client_credentials' }, headers),
      'demo',
    );
    expect(result.status).toBe(401);
    expect(json(result).error).toBe('invalid_client');
  });

  it('a malformed scope is invalid_scope', async () => {
    const { t, client } = await setup();
    const result = await t.server.token(
      postForm(
        '/tenant/demo/token',
        { grant_type: 'refresh_token', refresh_token: 'x', scope: 'a\\b' },
        basic(client.client_id, client.client_secret ?? ''),
      ),
      'demo',
    );
    expect(json(result).error).toBe('invalid_scope');
  });
});

describe('bad input at /authorize is shown or redirected, never a 500', () => {
  it('a repeated parameter before the client is known is shown', async () => {
    const { t } = await setup();
    const result = await t.server.authorize(
      { method: 'GET', path: '/', query: 'client_id=a&client_id=b', headers: {}, body: '' },
      'demo',
    );
    expect(result.status).toBe(400);
    expect(result.body).toContain('repeated');
  });

  it('an oversized parameter is shown', async () => {
    const { t } = await setup();
    const result = await t.server.authorize(get('/', { client_id: 'x'.repeat(5000) }), 'demo');
    expect(result.status).toBe(400);
  });

  it('a malformed req at /consent is an error page', async () => {
    const { t } = await setup();
    const result = await t.server.consent(postForm('/', 'req=%ZZ&decision=approve', {}, 'user-1'), 'demo');
    expect(result.status).toBe(400);
  });
});

describe('bad input at /register, /revoke and /introspect', () => {
  it('a JSON array, null or a number are invalid_client_metadata', async () => {
    const { t } = await setup();
    for (const body of ['[]', 'null', '42', '"x"']) {
      const result = await t.server.register(
        { method: 'POST', path: '/', query: '', headers: { 'content-type': 'application/json' }, body },
        'demo',
      );
      expect(json(result).error).toBe('invalid_client_metadata');
    }
  });

  it('a revoke without token is invalid_request', async () => {
    const { t, client } = await setup();
    const result = await t.server.revoke(
      postForm('/tenant/demo/revoke', {}, basic(client.client_id, client.client_secret ?? '')),
      'demo',
    );
    expect(json(result).error).toBe('invalid_request');
  });

  it('an introspection with a repeated token is invalid_request', async () => {
    const { t, client } = await setup();
    const result = await t.server.introspect(
      postForm(
        '/tenant/demo/introspect',
        'token=a&token=b',
        basic(client.client_id, client.client_secret ?? ''),
      ),
      'demo',
    );
    expect(json(result).error).toBe('invalid_request');
  });
});
