import { createLocalJWKSet, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import {
  basic,
  createTestServer,
  decodePayload,
  exchangeCode,
  ISSUER,
  json,
  obtainCode,
  postForm,
  RESOURCE,
  registerClient,
  USER,
} from '../helpers.js';

async function setup() {
  const t = await createTestServer();
  const publicClient = await registerClient(t.server, { token_endpoint_auth_method: 'none' });
  const confidential = await registerClient(t.server, { token_endpoint_auth_method: 'client_secret_basic' });
  return { t, publicClient, confidential };
}

describe('POST /token authorization_code: issued → consumed', () => {
  it('issues a JWT access token, a refresh token and (with openid) an id_token, never cached', async () => {
    const { t, publicClient } = await setup();
    const { code, verifier } = await obtainCode(t, publicClient.client_id, {
      scope: 'openid mcp',
      nonce: 'n-1',
    });
    const result = await exchangeCode(t, publicClient, code, verifier);
    expect(result.status).toBe(200);
    expect(result.headers['cache-control']).toBe('no-store');
    // No cookies are involved, so browser-based clients on any origin may call the endpoint.
    expect(result.headers['access-control-allow-origin']).toBe('*');
    const body = json(result);
    expect(body).toMatchObject({ token_type: 'Bearer', expires_in: 900, scope: 'mcp openid' });
    expect(body.refresh_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const now = Math.floor(t.clock.now() / 1000);
    const jwks = json(await t.server.jwks(postForm('/', ''), 'demo')) as { keys: [] };
    const { payload, protectedHeader } = await jwtVerify(String(body.access_token), createLocalJWKSet(jwks), {
      issuer: ISSUER,
      currentDate: new Date(t.clock.now()),
    });
    expect(protectedHeader.typ).toBe('at+jwt');
    expect(payload).toMatchObject({
      iss: ISSUER,
      sub: USER,
      aud: RESOURCE,
      client_id: publicClient.client_id,
      scope: 'mcp openid',
      iat: now,
      exp: now + 900,
    });
    expect(typeof payload.jti).toBe('string');
    const idToken = decodePayload(String(body.id_token));
    expect(idToken).toMatchObject({
      iss: ISSUER,
      sub: USER,
      aud: publicClient.client_id,
      azp: publicClient.client_id,
      nonce: 'n-1',
      iat: now,
    });
    expect(Number(idToken.exp)).toBeGreaterThan(now);
  });

  it('issues no id_token without openid', async () => {
    const { t, publicClient } = await setup();
    const { code, verifier } = await obtainCode(t, publicClient.client_id, { scope: 'mcp' });
    expect(json(await exchangeCode(t, publicClient, code, verifier)).id_token).toBeUndefined();
  });

  it('carries resource (RFC 8707) through to the aud claim', async () => {
    const { t, publicClient } = await setup();
    const { code, verifier } = await obtainCode(t, publicClient.client_id, { resource: RESOURCE });
    const body = json(await exchangeCode(t, publicClient, code, verifier));
    expect(decodePayload(String(body.access_token)).aud).toBe(RESOURCE);
  });

  it('a confidential client authenticates with HTTP Basic', async () => {
    const { t, confidential } = await setup();
    const { code, verifier } = await obtainCode(t, confidential.client_id);
    expect((await exchangeCode(t, confidential, code, verifier)).status).toBe(200);
  });

  it('a confidential client without Basic is invalid_client (401 with a Basic challenge)', async () => {
    const { t, confidential } = await setup();
    const { code, verifier } = await obtainCode(t, confidential.client_id);
    const result = await exchangeCode({ ...t }, { client_id: confidential.client_id }, code, verifier);
    expect(result.status).toBe(401);
    expect(json(result).error).toBe('invalid_client');
    expect(result.headers['www-authenticate']).toBe('Basic realm="demo"');
  });

  it('client_secret_post is refused on authorization_code (Basic is required)', async () => {
    const { t, confidential } = await setup();
    const { code, verifier } = await obtainCode(t, confidential.client_id);
    const result = await exchangeCode(t, { client_id: confidential.client_id }, code, verifier, {
      client_secret: confidential.client_secret ?? '',
    });
    expect(json(result).error).toBe('invalid_client');
  });

  it('a wrong secret is invalid_client', async () => {
    const { t, confidential } = await setup();
    const { code, verifier } = await obtainCode(t, confidential.client_id);
    const result = await exchangeCode(
      t,
      { client_id: confidential.client_id, client_secret: 'wrong' },
      code,
      verifier,
    );
    expect(result.status).toBe(401);
  });
});

describe('POST /token authorization_code: rejected', () => {
  it('a code used twice is invalid_grant', async () => {
    const { t, publicClient } = await setup();
    const { code, verifier } = await obtainCode(t, publicClient.client_id);
    expect((await exchangeCode(t, publicClient, code, verifier)).status).toBe(200);
    expect(json(await exchangeCode(t, publicClient, code, verifier)).error).toBe('invalid_grant');
  });

  it('an expired code (after 60 s) is invalid_grant and is deleted on that presentation', async () => {
    const { t, publicClient } = await setup();
    const { code, verifier } = await obtainCode(t, publicClient.client_id);
    t.clock.advance(60_001);
    const result = await exchangeCode(t, publicClient, code, verifier);
    expect(json(result)).toEqual({
      error: 'invalid_grant',
      error_description: 'the authorization code has expired',
    });
    t.clock.advance(-60_001);
    expect(json(await exchangeCode(t, publicClient, code, verifier)).error_description).toMatch(
      /already used/,
    );
  });

  it('a wrong code_verifier is invalid_grant, and the code is gone afterwards', async () => {
    const { t, publicClient } = await setup();
    const { code, verifier } = await obtainCode(t, publicClient.client_id);
    const wrong = `${verifier.slice(0, -1)}${verifier.endsWith('A') ? 'B' : 'A'}`;
    expect(json(await exchangeCode(t, publicClient, code, wrong)).error).toBe('invalid_grant');
    expect(json(await exchangeCode(t, publicClient, code, verifier)).error).toBe('invalid_grant');
  });

  it('a different redirect_uri is invalid_grant', async () => {
    const { t, publicClient } = await setup();
    const { code, verifier } = await obtainCode(t, publicClient.client_id);
    const result = await exchangeCode(t, publicClient, code, verifier, {
      redirect_uri: 'https://app.example/other',
    });
    expect(json(result).error).toBe('invalid_grant');
  });

  it('a code issued to another client is invalid_grant', async () => {
    const { t, publicClient } = await setup();
    const other = await registerClient(t.server, { token_endpoint_auth_method: 'none' });
    const { code, verifier } = await obtainCode(t, publicClient.client_id);
    expect(json(await exchangeCode(t, other, code, verifier)).error).toBe('invalid_grant');
  });

  it('a missing code_verifier is invalid_request', async () => {
    const { t, publicClient } = await setup();
    const { code } = await obtainCode(t, publicClient.client_id);
    const result = await t.server.token(
      postForm('/tenant/demo/token', {
        grant_type: 'authorization_code',
        code,
        redirect_uri: 'https://app.example/callback',
        client_id: publicClient.client_id,
      }),
      'demo',
    );
    expect(json(result).error).toBe('invalid_request');
  });

  it('Basic and client_secret_post together are invalid_request', async () => {
    const { t, confidential } = await setup();
    const result = await t.server.token(
      postForm(
        '/tenant/demo/token',
        {
          grant_type: 'authorization_code',
          code: 'x',
          code_verifier: 'y',
          redirect_uri: 'z',
          client_secret: 's',
        },
        basic(confidential.client_id, confidential.client_secret ?? ''),
      ),
      'demo',
    );
    expect(json(result).error).toBe('invalid_request');
  });
});

describe('POST /token authorization_code: the code is deleted on any presentation', () => {
  it('a presentation that fails client authentication still spends the code', async () => {
    const t = await createTestServer();
    const confidential = await registerClient(t.server);
    const { code, verifier } = await obtainCode(t, confidential.client_id);
    const failed = await exchangeCode(
      t,
      { client_id: confidential.client_id, client_secret: 'wrong' },
      code,
      verifier,
    );
    expect(failed.status).toBe(401);
    expect(json(await exchangeCode(t, confidential, code, verifier)).error).toBe('invalid_grant');
  });

  it('a presentation without code_verifier still spends the code', async () => {
    const t = await createTestServer();
    const client = await registerClient(t.server, { token_endpoint_auth_method: 'none' });
    const { code, verifier } = await obtainCode(t, client.client_id);
    await t.server.token(
      postForm('/tenant/demo/token', { grant_type: 'authorization_code', code, client_id: client.client_id }),
      'demo',
    );
    expect(json(await exchangeCode(t, client, code, verifier)).error).toBe('invalid_grant');
  });
});

describe('OAuth 2.1 §4.1.3: a replayed code revokes the tokens issued from it', () => {
  it('the refresh token and the access token of the first redemption stop working', async () => {
    const { t, publicClient } = await setup();
    const { code, verifier } = await obtainCode(t, publicClient.client_id);
    const first = json(await exchangeCode(t, publicClient, code, verifier));
    const accessToken = String(first.access_token);
    expect((await t.server.verifyAccessToken('demo', `Bearer ${accessToken}`)).ok).toBe(true);

    const replay = json(await exchangeCode(t, publicClient, code, verifier));
    expect(replay).toEqual({
      error: 'invalid_grant',
      error_description: 'the authorization code was already used; its tokens are revoked',
    });

    const refreshed = await t.server.token(
      postForm('/tenant/demo/token', {
        grant_type: 'refresh_token',
        refresh_token: String(first.refresh_token),
        client_id: publicClient.client_id,
      }),
      'demo',
    );
    expect(json(refreshed).error).toBe('invalid_grant');
    expect((await t.server.verifyAccessToken('demo', `Bearer ${accessToken}`)).ok).toBe(false);
    const jti = String(decodePayload(accessToken).jti);
    expect(await t.storage.revokedAccessTokens.isRevoked('demo', jti, t.clock.now())).toBe(true);
  });

  it('revokes refresh tokens rotated from the first one too (the whole family)', async () => {
    const { t, publicClient } = await setup();
    const { code, verifier } = await obtainCode(t, publicClient.client_id);
    const first = json(await exchangeCode(t, publicClient, code, verifier));
    const refresh = (token: unknown) =>
      t.server.token(
        postForm('/tenant/demo/token', {
          grant_type: 'refresh_token',
          refresh_token: String(token),
          client_id: publicClient.client_id,
        }),
        'demo',
      );
    const rotated = json(await refresh(first.refresh_token));
    expect(rotated.refresh_token).toBeTypeOf('string');
    await exchangeCode(t, publicClient, code, verifier);
    expect(json(await refresh(rotated.refresh_token)).error).toBe('invalid_grant');
  });

  it('a replay by someone who cannot authenticate still revokes (the code has leaked)', async () => {
    const { t, confidential } = await setup();
    const { code, verifier } = await obtainCode(t, confidential.client_id);
    const first = json(await exchangeCode(t, confidential, code, verifier));
    const stolen = await exchangeCode(
      t,
      { client_id: confidential.client_id, client_secret: 'wrong' },
      code,
      verifier,
    );
    expect(json(stolen).error).toBe('invalid_grant');
    expect((await t.server.verifyAccessToken('demo', `Bearer ${String(first.access_token)}`)).ok).toBe(false);
  });

  it('the consumed code is kept (marked) until it expires, so the replay is recognised', async () => {
    const { t, publicClient } = await setup();
    const { code, verifier } = await obtainCode(t, publicClient.client_id);
    await exchangeCode(t, publicClient, code, verifier);
    const { sha256Base64url } = await import('@keyhold/internal');
    const kept = await t.storage.authorizationCodes.consume('demo', sha256Base64url(code), t.clock.now());
    expect(kept?.consumedAt).toBe(t.clock.now());
    expect(kept?.familyId).toBeTypeOf('string');
    expect(kept?.accessTokenJti).toBeTypeOf('string');
  });
});
