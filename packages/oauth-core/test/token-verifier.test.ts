import { describe, expect, it } from 'vitest';
import { OAuthError } from '../src/index.js';
import {
  basic,
  createTestServer,
  exchangeCode,
  json,
  obtainCode,
  postForm,
  provisionClient,
  RESOURCE,
  registerClient,
} from './helpers.js';

async function userToken() {
  const t = await createTestServer();
  const client = await registerClient(t.server, { token_endpoint_auth_method: 'none' });
  const { code, verifier } = await obtainCode(t, client.client_id, { scope: 'mcp:tools files:read' });
  const access = String(json(await exchangeCode(t, client, code, verifier)).access_token);
  return { t, access, clientId: client.client_id };
}

describe("tokenVerifier: the MCP SDK's OAuthTokenVerifier shape", () => {
  it('describes a valid token as AuthInfo: client, scopes, expiry in seconds, resource URL, subject', async () => {
    const { t, access, clientId } = await userToken();
    const info = await t.server.tokenVerifier('demo').verifyAccessToken(access);
    expect(info.token).toBe(access);
    expect(info.clientId).toBe(clientId);
    expect(info.scopes.sort()).toEqual(['files:read', 'mcp:tools']);
    expect(info.expiresAt).toBe(Math.floor(t.clock.now() / 1000) + 900);
    expect(info.resource?.href).toBe(new URL(RESOURCE).href);
    expect(info.extra).toMatchObject({ subjectType: 'user', tenantId: 'demo' });
    expect(typeof info.extra?.['sub']).toBe('string');
  });

  it('marks a token a client obtained for itself as subjectType client', async () => {
    const t = await createTestServer();
    const client = await provisionClient(t.server, {
      grantTypes: ['client_credentials'],
      scope: 'mcp:tools',
    });
    const body = json(
      await t.server.token(
        postForm(
          '/tenant/demo/token',
          { grant_type: 'client_credentials' },
          basic(client.client_id, client.client_secret ?? ''),
        ),
        'demo',
      ),
    );
    const info = await t.server.tokenVerifier('demo').verifyAccessToken(String(body.access_token));
    expect(info.extra).toMatchObject({ sub: `client:${client.client_id}`, subjectType: 'client' });
  });

  it.each([
    ['a garbage token', 'not-a-jwt'],
    ['a token of another tenant', 'OTHER'],
  ])('throws OAuthError invalid_token for %s', async (_, kind) => {
    const { t, access } = await userToken();
    const verifier = t.server.tokenVerifier(kind === 'OTHER' ? 'nope' : 'demo');
    const error = await verifier.verifyAccessToken(kind === 'OTHER' ? access : kind).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OAuthError);
    expect((error as OAuthError).code).toBe('invalid_token');
  });

  it('throws invalid_token once the token has expired by the injected clock', async () => {
    const { t, access } = await userToken();
    t.clock.advance(900_001);
    await expect(t.server.tokenVerifier('demo').verifyAccessToken(access)).rejects.toMatchObject({
      code: 'invalid_token',
    });
  });

  it('throws invalid_token for a revoked token', async () => {
    const { t, access, clientId } = await userToken();
    await t.server.revoke(postForm('/tenant/demo/revoke', { token: access, client_id: clientId }), 'demo');
    await expect(t.server.tokenVerifier('demo').verifyAccessToken(access)).rejects.toMatchObject({
      code: 'invalid_token',
      message: 'the access token was revoked',
    });
  });

  it('throws invalid_token for a token whose audience is another resource', async () => {
    const { t, access } = await userToken();
    const verifier = t.server.tokenVerifier('demo', { resource: 'https://other.example/api' });
    await expect(verifier.verifyAccessToken(access)).rejects.toMatchObject({
      message: 'the access token is not for this resource',
    });
  });

  it('leaves scope and subject policy to the resource: a token without the tool scope is described', async () => {
    const t = await createTestServer();
    const client = await registerClient(t.server, { token_endpoint_auth_method: 'none' });
    const { code, verifier } = await obtainCode(t, client.client_id, { scope: 'files:read' });
    const access = String(json(await exchangeCode(t, client, code, verifier)).access_token);
    const info = await t.server.tokenVerifier('demo').verifyAccessToken(access);
    expect(info.scopes).toEqual(['files:read']);
  });
});
