import { createRemoteJWKSet, exportJWK, generateKeyPair, jwtVerify } from 'jose';
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpHost } from './http-host.js';
import { startHttpHost, submitConsent } from './http-host.js';
import { discover, insecure, register } from './oauth4webapi-kit.js';

let host: HttpHost;
beforeAll(async () => {
  host = await startHttpHost({ scopesSupported: ['openid', 'mcp'] });
});
afterAll(async () => {
  await host.close();
});

async function browse(url: string, init: RequestInit = {}): Promise<Response> {
  return fetch(url, { redirect: 'manual', ...init, headers: { cookie: 'session=alice', ...init.headers } });
}

describe('the full authorization-code flow, driven by oauth4webapi', () => {
  it('discovery → registration → authorize → consent → token → resource → refresh → introspect → revoke', async () => {
    // RFC 8414 path insertion: /.well-known/oauth-authorization-server/tenant/demo
    const as = await discover(host.issuer);
    expect(as.issuer).toBe(host.issuer);

    const resource = new URL(`${host.issuer}/mcp`);
    const rs = await oauth.processResourceDiscoveryResponse(
      resource,
      await oauth.resourceDiscoveryRequest(resource, insecure),
    );
    expect(rs.authorization_servers).toEqual([host.issuer]);

    const redirectUri = 'http://127.0.0.1/callback';
    const registered = await register(as, {
      redirect_uris: [redirectUri],
      client_name: 'Strict Client',
      token_endpoint_auth_method: 'client_secret_basic',
    });
    const client: oauth.Client = { client_id: registered.client_id };
    const clientAuth = oauth.ClientSecretBasic(String(registered.client_secret));

    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const nonce = oauth.generateRandomNonce();
    const authorizationUrl = new URL(String(as.authorization_endpoint));
    authorizationUrl.search = new URLSearchParams({
      client_id: client.client_id,
      redirect_uri: 'http://127.0.0.1:43210/callback',
      response_type: 'code',
      scope: 'openid mcp',
      state,
      nonce,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      resource: resource.href,
    }).toString();

    const toConsent = await browse(authorizationUrl.href);
    expect(toConsent.status).toBe(302);
    const consentUrl = new URL(String(toConsent.headers.get('location')));
    const page = await browse(consentUrl.href);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Strict Client');
    const decided = await submitConsent(consentUrl, { cookie: 'session=alice' });
    expect(decided.status).toBe(302);
    const callback = new URL(String(decided.headers.get('location')));
    expect(callback.port).toBe('43210');

    // RFC 9207: oauth4webapi checks iss against the issuer because the metadata advertises it.
    const params = oauth.validateAuthResponse(as, client, callback, state);
    const tokenResponse = await oauth.authorizationCodeGrantRequest(
      as,
      client,
      clientAuth,
      params,
      'http://127.0.0.1:43210/callback',
      verifier,
      insecure,
    );
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, tokenResponse, {
      expectedNonce: nonce,
      requireIdToken: true,
    });
    expect(tokens.token_type).toBe('bearer');
    expect(tokens.scope).toBe('mcp openid');
    const idClaims = oauth.getValidatedIdTokenClaims(tokens);
    expect(idClaims).toMatchObject({ iss: host.issuer, sub: 'alice', aud: client.client_id, nonce });
    // The id_token's signature checks out against the published JWKS.
    const jwks = createRemoteJWKSet(new URL(String(as.jwks_uri)));
    await expect(
      jwtVerify(String(tokens.id_token), jwks, { issuer: host.issuer, audience: client.client_id }),
    ).resolves.toBeDefined();

    // The access token is an RFC 9068 JWT the resource can validate.
    const request = new Request(resource, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    const validated = await oauth.validateJwtAccessToken(as, request, resource.href, insecure);
    expect(validated.sub).toBe('alice');
    const mcp = await fetch(resource, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(await mcp.json()).toEqual({ sub: 'alice' });

    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, clientAuth, String(tokens.refresh_token), insecure),
    );
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);

    const introspection = await oauth.processIntrospectionResponse(
      as,
      client,
      await oauth.introspectionRequest(as, client, clientAuth, refreshed.access_token, insecure),
    );
    expect(introspection).toMatchObject({ active: true, sub: 'alice', client_id: client.client_id });

    await oauth.processRevocationResponse(
      await oauth.revocationRequest(as, client, clientAuth, String(refreshed.refresh_token), insecure),
    );
    await expect(
      oauth.processRefreshTokenResponse(
        as,
        client,
        await oauth.refreshTokenGrantRequest(
          as,
          client,
          clientAuth,
          String(refreshed.refresh_token),
          insecure,
        ),
      ),
    ).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  it('the protected resource answers a missing token with a challenge oauth4webapi can parse', async () => {
    const response = await fetch(`${host.issuer}/mcp`);
    expect(response.status).toBe(401);
    const header = String(response.headers.get('www-authenticate'));
    expect(header).toContain('realm="demo"');
    expect(header).toContain(
      `resource_metadata="${host.baseUrl}/.well-known/oauth-protected-resource/tenant/demo/mcp"`,
    );
  });

  it('serves discovery in every form the host contract lists', async () => {
    for (const path of [
      '/.well-known/oauth-authorization-server/tenant/demo',
      '/tenant/demo/.well-known/oauth-authorization-server',
      '/.well-known/openid-configuration/tenant/demo',
      '/tenant/demo/.well-known/openid-configuration',
    ]) {
      const body = (await (await fetch(`${host.baseUrl}${path}`)).json()) as { issuer: string };
      expect(body.issuer).toBe(host.issuer);
    }
    for (const path of [
      '/.well-known/oauth-protected-resource/tenant/demo/mcp',
      '/tenant/demo/.well-known/oauth-protected-resource',
    ]) {
      const body = (await (await fetch(`${host.baseUrl}${path}`)).json()) as { resource: string };
      expect(body.resource).toBe(`${host.issuer}/mcp`);
    }
  });
});

describe('private_key_jwt (RFC 7523 §2.2), driven by oauth4webapi', () => {
  it('discovery advertises it; PrivateKeyJwt authenticates client_credentials, introspection and revocation', async () => {
    const as = await discover(host.issuer);
    expect(as.token_endpoint_auth_methods_supported).toContain('private_key_jwt');
    expect(as.token_endpoint_auth_signing_alg_values_supported).toEqual(['RS256', 'PS256', 'ES256', 'EdDSA']);

    const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
    const created = await host.server.clients.provision('demo', {
      grantTypes: ['client_credentials'],
      tokenEndpointAuthMethod: 'private_key_jwt',
      jwks: { keys: [{ ...(await exportJWK(publicKey)), kty: 'EC', kid: 'peer-1' }] },
      scope: 'mcp',
    });
    const client: oauth.Client = { client_id: created.clientId };
    const clientAuth = oauth.PrivateKeyJwt({ key: privateKey, kid: 'peer-1' });

    const tokens = await oauth.processClientCredentialsResponse(
      as,
      client,
      await oauth.clientCredentialsGrantRequest(
        as,
        client,
        clientAuth,
        new URLSearchParams({ scope: 'mcp' }),
        insecure,
      ),
    );
    expect(tokens.token_type).toBe('bearer');

    const introspection = await oauth.processIntrospectionResponse(
      as,
      client,
      await oauth.introspectionRequest(as, client, clientAuth, tokens.access_token, insecure),
    );
    expect(introspection).toMatchObject({ active: true, client_id: created.clientId });

    await oauth.processRevocationResponse(
      await oauth.revocationRequest(as, client, clientAuth, tokens.access_token, insecure),
    );
    const after = await oauth.processIntrospectionResponse(
      as,
      client,
      await oauth.introspectionRequest(as, client, clientAuth, tokens.access_token, insecure),
    );
    expect(after.active).toBe(false);
  });
});
