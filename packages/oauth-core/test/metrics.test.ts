import { describe, expect, it } from 'vitest';
import {
  basic,
  createTestServer,
  exchangeCode,
  get,
  json,
  obtainCode,
  postForm,
  registerClient,
} from './helpers.js';

describe('mcp_auth.events: once per handler invocation', () => {
  it('records endpoint, status, grant_type, client_type and error_code where they apply', async () => {
    const t = await createTestServer();
    const client = await registerClient(t.server, { token_endpoint_auth_method: 'none' });
    expect(t.events).toEqual([
      { endpoint: 'register', status: 201, client_type: 'registered', reason: 'client.registered' },
    ]);
    t.events.length = 0;

    const { code, verifier } = await obtainCode(t, client.client_id);
    expect(t.events).toEqual([
      { endpoint: 'authorize', status: 302, client_type: 'registered', reason: 'authorize.consent_shown' },
      { endpoint: 'consent', status: 200, client_type: 'registered', reason: 'consent.page_shown' },
      { endpoint: 'consent', status: 302, client_type: 'registered', reason: 'consent.approved' },
    ]);
    t.events.length = 0;

    await exchangeCode(t, client, code, verifier);
    await exchangeCode(t, client, code, verifier);
    await t.server.token(postForm('/tenant/demo/token', { grant_type: 'password' }), 'demo');
    await t.server.authorizationServerMetadata(get('/'), 'demo');
    await t.server.jwks(get('/'), 'demo');
    expect(t.events).toEqual([
      {
        endpoint: 'token',
        status: 200,
        grant_type: 'authorization_code',
        client_type: 'registered',
        reason: 'token.issued',
      },
      {
        endpoint: 'token',
        status: 400,
        grant_type: 'authorization_code',
        client_type: 'registered',
        error_code: 'invalid_grant',
        reason: 'grant.revoked.security',
      },
      {
        endpoint: 'token',
        status: 400,
        error_code: 'unsupported_grant_type',
        reason: 'request.unsupported_grant_type',
      },
      { endpoint: 'metadata', status: 200 },
      { endpoint: 'jwks', status: 200 },
    ]);
  });

  it('records a redirected authorize error and a failed client authentication', async () => {
    const t = await createTestServer();
    const client = await registerClient(t.server);
    t.events.length = 0;
    await t.server.authorize(
      get(
        '/',
        { client_id: client.client_id, redirect_uri: 'https://app.example/callback', response_type: 'token' },
        'u',
      ),
      'demo',
    );
    await t.server.introspect(postForm('/', { token: 'x' }, basic(client.client_id, 'wrong')), 'demo');
    expect(t.events).toEqual([
      {
        endpoint: 'authorize',
        status: 302,
        client_type: 'registered',
        error_code: 'unsupported_response_type',
        reason: 'request.unsupported_response_type',
      },
      { endpoint: 'introspect', status: 401, error_code: 'invalid_client', reason: 'request.invalid_client' },
    ]);
    expect(json(await t.server.jwks(get('/'), 'demo')).keys).toHaveLength(1);
  });

  it('records a 500 and rethrows when storage fails', async () => {
    const t = await createTestServer();
    t.storage.clients.get = async () => {
      throw new Error('database down');
    };
    await expect(
      t.server.token(
        postForm('/', { grant_type: 'client_credentials', client_id: 'x', client_secret: 'y' }),
        'demo',
      ),
    ).rejects.toThrow('database down');
    expect(t.events.at(-1)).toEqual({
      endpoint: 'token',
      status: 500,
      grant_type: 'client_credentials',
      reason: 'request.server_error',
    });
  });
});
