import { describe, expect, it } from 'vitest';
import {
  basic,
  createTestServer,
  exchangeCode,
  json,
  obtainCode,
  postForm,
  RESOURCE,
  registerClient,
  USER,
} from '../helpers.js';

async function setup() {
  const t = await createTestServer();
  const client = await registerClient(t.server, { token_endpoint_auth_method: 'none' });
  const resourceServer = await registerClient(t.server);
  // The host marks its resource server (RFC 7662 §4): only listed clients introspect others' tokens.
  t.tenant.introspectionClientIds = [resourceServer.client_id];
  const { code, verifier } = await obtainCode(t, client.client_id, { scope: 'openid mcp' });
  const tokens = json(await exchangeCode(t, client, code, verifier));
  const introspect = async (
    token: string,
    as: { client_id: string; client_secret?: string } = resourceServer,
  ) =>
    json(
      await t.server.introspect(
        postForm(
          '/tenant/demo/introspect',
          { token, ...(as.client_secret ? {} : { client_id: as.client_id }) },
          as.client_secret ? basic(as.client_id, as.client_secret) : {},
        ),
        'demo',
      ),
    );
  const revoke = (token: string, as: { client_id: string } = client) =>
    t.server.revoke(postForm('/tenant/demo/revoke', { token, client_id: as.client_id }), 'demo');
  return {
    t,
    client,
    resourceServer,
    access: String(tokens.access_token),
    refresh: String(tokens.refresh_token),
    introspect,
    revoke,
  };
}

describe('POST /introspect (RFC 7662)', () => {
  it('describes an active JWT access token', async () => {
    const { t, client, access, introspect } = await setup();
    const body = await introspect(access);
    expect(body).toMatchObject({
      active: true,
      token_type: 'Bearer',
      sub: USER,
      client_id: client.client_id,
      scope: 'mcp openid',
      aud: RESOURCE,
      iss: t.server.issuer('demo'),
    });
  });

  it('describes an active refresh token', async () => {
    const { client, refresh, introspect } = await setup();
    expect(await introspect(refresh)).toMatchObject({
      active: true,
      token_type: 'refresh_token',
      sub: USER,
      client_id: client.client_id,
      scope: 'mcp openid',
    });
  });

  it('an expired access token is inactive', async () => {
    const { t, access, introspect } = await setup();
    t.clock.advance(900_001);
    expect(await introspect(access)).toEqual({ active: false });
  });

  it('an unknown or garbage token is inactive', async () => {
    const { introspect } = await setup();
    expect(await introspect('nope')).toEqual({ active: false });
    expect(await introspect('a.b.c')).toEqual({ active: false });
  });

  it('a public client sees only its own tokens', async () => {
    const { t, access, introspect, client } = await setup();
    const stranger = await registerClient(t.server, { token_endpoint_auth_method: 'none' });
    expect(await introspect(access, stranger)).toEqual({ active: false });
    expect((await introspect(access, client)).active).toBe(true);
  });

  it('RFC 7662 §4: a confidential client the tenant does not list as a resource server sees only its own tokens', async () => {
    const { t, access, refresh, introspect } = await setup();
    // Anyone can register a confidential client anonymously: its secret must not open every user's tokens.
    const stranger = await registerClient(t.server);
    expect(await introspect(access, stranger)).toEqual({ active: false });
    expect(await introspect(refresh, stranger)).toEqual({ active: false });
    const { code, verifier } = await obtainCode(t, stranger.client_id, { scope: 'mcp' });
    const own = json(await exchangeCode(t, stranger, code, verifier));
    expect(await introspect(String(own.access_token), stranger)).toMatchObject({
      active: true,
      client_id: stranger.client_id,
    });
    expect((await introspect(String(own.refresh_token), stranger)).active).toBe(true);
    t.tenant.introspectionClientIds = [stranger.client_id];
    expect((await introspect(access, stranger)).active).toBe(true);
    expect((await introspect(refresh, stranger)).active).toBe(true);
  });

  it('a public client listed in introspectionClientIds is still no resource server (it proves nothing)', async () => {
    const { t, access, introspect } = await setup();
    const stranger = await registerClient(t.server, { token_endpoint_auth_method: 'none' });
    t.tenant.introspectionClientIds = [stranger.client_id];
    expect(await introspect(access, stranger)).toEqual({ active: false });
  });

  it('requires client authentication', async () => {
    const { t, access } = await setup();
    const result = await t.server.introspect(postForm('/tenant/demo/introspect', { token: access }), 'demo');
    expect(result.status).toBe(401);
    expect(json(result).error).toBe('invalid_client');
  });
});

describe('POST /revoke (RFC 7009)', () => {
  it('revoking an access token makes it inactive and refused by the resource', async () => {
    const { t, access, revoke, introspect } = await setup();
    const result = await revoke(access);
    expect(result.status).toBe(200);
    expect(await introspect(access)).toEqual({ active: false });
    const check = await t.server.verifyAccessToken('demo', `Bearer ${access}`);
    expect(check.ok).toBe(false);
  });

  it('revoking a refresh token revokes its family: it can no longer be used or introspected', async () => {
    const { t, client, refresh, revoke, introspect } = await setup();
    expect((await revoke(refresh)).status).toBe(200);
    expect(await introspect(refresh)).toEqual({ active: false });
    const used = await t.server.token(
      postForm('/tenant/demo/token', {
        grant_type: 'refresh_token',
        refresh_token: refresh,
        client_id: client.client_id,
      }),
      'demo',
    );
    expect(json(used).error).toBe('invalid_grant');
  });

  it('answers 200 for an unknown token', async () => {
    const { revoke } = await setup();
    const result = await revoke('unknown-token');
    expect(result.status).toBe(200);
    expect(result.body).toBeUndefined();
  });

  it('another client cannot revoke the token (200, but nothing happens)', async () => {
    const { t, refresh, revoke, introspect } = await setup();
    const stranger = await registerClient(t.server, { token_endpoint_auth_method: 'none' });
    expect((await revoke(refresh, stranger)).status).toBe(200);
    expect((await introspect(refresh)).active).toBe(true);
  });

  it('requires client authentication', async () => {
    const { t, refresh } = await setup();
    const result = await t.server.revoke(postForm('/tenant/demo/revoke', { token: refresh }), 'demo');
    expect(result.status).toBe(401);
  });
});
