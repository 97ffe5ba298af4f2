import { describe, expect, it } from 'vitest';
import {
  basic,
  createTestServer,
  decodePayload,
  ISSUER,
  json,
  postForm,
  provisionClient,
  RESOURCE,
  registerClient,
  type TestServer,
} from '../helpers.js';

async function setup(method: 'client_secret_basic' | 'client_secret_post' = 'client_secret_basic') {
  const t = await createTestServer();
  const client = await provisionClient(t.server, {
    grantTypes: ['client_credentials'],
    tokenEndpointAuthMethod: method,
    scope: 'reports:read reports:write',
  });
  const secret = String(client.client_secret);
  return { t, client, secret };
}

/** A client_credentials request authenticated with HTTP Basic; `form` adds to it (a scope). */
function withBasic(t: TestServer, clientId: string, secret: string, form: Record<string, string> = {}) {
  return t.server.token(
    postForm('/tenant/demo/token', { grant_type: 'client_credentials', ...form }, basic(clientId, secret)),
    'demo',
  );
}

describe('POST /token client_credentials', () => {
  it('with HTTP Basic: an access token only, sub client:<client_id>, no refresh token', async () => {
    const { t, client, secret } = await setup();
    const result = await withBasic(t, client.client_id, secret);
    expect(result.status).toBe(200);
    const body = json(result);
    expect(body.refresh_token).toBeUndefined();
    expect(body.id_token).toBeUndefined();
    expect(body.scope).toBe('reports:read reports:write');
    expect(decodePayload(String(body.access_token))).toMatchObject({
      iss: ISSUER,
      sub: `client:${client.client_id}`,
      client_id: client.client_id,
      aud: RESOURCE,
    });
  });

  it('with client_secret_post', async () => {
    const { t, client, secret } = await setup('client_secret_post');
    const result = await t.server.token(
      postForm('/tenant/demo/token', {
        grant_type: 'client_credentials',
        client_id: client.client_id,
        client_secret: secret,
        scope: 'reports:read',
      }),
      'demo',
    );
    expect(json(result)).toMatchObject({ scope: 'reports:read', token_type: 'Bearer' });
  });

  it('a scope outside the registered scope is invalid_scope', async () => {
    const { t, client, secret } = await setup();
    const result = await withBasic(t, client.client_id, secret, { scope: 'reports:read admin' });
    expect(json(result).error).toBe('invalid_scope');
  });

  it('a wrong secret is invalid_client', async () => {
    const { t, client } = await setup();
    const result = await withBasic(t, client.client_id, 'nope');
    expect(result.status).toBe(401);
  });

  it('a public client is unauthorized_client', async () => {
    const t = await createTestServer();
    const client = await registerClient(t.server, { token_endpoint_auth_method: 'none' });
    const result = await t.server.token(
      postForm('/tenant/demo/token', { grant_type: 'client_credentials', client_id: client.client_id }),
      'demo',
    );
    expect(json(result).error).toBe('unauthorized_client');
  });

  it('a client not registered for the grant is unauthorized_client', async () => {
    const t = await createTestServer();
    const client = await registerClient(t.server);
    const result = await withBasic(t, client.client_id, String(client.client_secret));
    expect(json(result).error).toBe('unauthorized_client');
  });
});
