import { createRemoteJWKSet, jwtVerify } from 'jose';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approveInBrowser, type HostProcess, startHost } from './host.js';

const REDIRECT_URI = 'http://127.0.0.1:1/callback';
const SCOPE = 'openid profile mcp:tools offline_access';

let host: HostProcess;
beforeAll(async () => {
  host = await startHost();
});
afterAll(async () => {
  await host?.stop();
});

// The host runs on plain http on loopback; openid-client refuses http unless told otherwise.
const insecure = { execute: [client.allowInsecureRequests] };

/** Registers a confidential client through openid-client's own RFC 7591 support. */
async function registerConfidential(algorithm: 'oidc' | 'oauth2'): Promise<client.Configuration> {
  const registered = await client.dynamicClientRegistration(
    new URL(host.issuer),
    {
      client_name: 'openid-client conformance',
      redirect_uris: [REDIRECT_URI],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
      scope: SCOPE,
    },
    undefined,
    { ...insecure, algorithm },
  );
  // openid-client defaults a registered secret to client_secret_post; the host holds the client to the
  // method it registered (client_secret_basic), as RFC 7591 intends, so say which one to use.
  const metadata = registered.clientMetadata();
  const config = new client.Configuration(
    registered.serverMetadata(),
    metadata.client_id,
    metadata,
    client.ClientSecretBasic(metadata.client_secret as string),
  );
  client.allowInsecureRequests(config);
  return config;
}

/** The authorization-code flow with PKCE, state and nonce, approved in the "browser". */
async function signIn(config: client.Configuration) {
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const nonce = client.randomNonce();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT_URI,
    scope: SCOPE,
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    nonce,
    resource: host.mcpUrl,
  });
  const callback = await approveInBrowser(url);
  return client.authorizationCodeGrant(
    config,
    callback,
    { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce, idTokenExpected: true },
    { resource: host.mcpUrl },
  );
}

describe('openid-client discovery', () => {
  it('discovers the tenant by OpenID Connect path-append ({issuer}/.well-known/openid-configuration)', async () => {
    const config = await client.discovery(new URL(host.issuer), 'unused', undefined, undefined, {
      ...insecure,
      algorithm: 'oidc',
    });
    const metadata = config.serverMetadata();
    expect(metadata.issuer).toBe(host.issuer);
    expect(metadata.jwks_uri).toBeDefined();
    expect(metadata.id_token_signing_alg_values_supported).toContain('ES256');
  });

  it('discovers the tenant by RFC 8414 insertion (/.well-known/oauth-authorization-server/tenant/demo)', async () => {
    const config = await client.discovery(new URL(host.issuer), 'unused', undefined, undefined, {
      ...insecure,
      algorithm: 'oauth2',
    });
    expect(config.serverMetadata().issuer).toBe(host.issuer);
    expect(config.serverMetadata().code_challenge_methods_supported).toContain('S256');
  });
});

describe('openid-client as a confidential client (client_secret_basic)', () => {
  it('registers dynamically and gets a client secret', async () => {
    const config = await registerConfidential('oauth2');
    expect(config.clientMetadata().client_id).toEqual(expect.any(String));
    expect(config.clientMetadata().client_secret).toEqual(expect.any(String));
  });

  it('completes the authorization-code flow and validates the id_token (iss, aud, nonce, signature alg)', async () => {
    const config = await registerConfidential('oidc');
    const tokens = await signIn(config);
    expect(tokens.token_type.toLowerCase()).toBe('bearer');
    expect(tokens.access_token).toEqual(expect.any(String));
    expect(tokens.id_token).toEqual(expect.any(String));
    const claims = tokens.claims()!;
    expect(claims.iss).toBe(host.issuer);
    expect(claims.aud).toContain(config.clientMetadata().client_id);
    expect(claims.sub).toEqual(expect.any(String));
    // openid-client checks the claims; the signature is checked here against the published JWKS.
    const jwks = createRemoteJWKSet(new URL(config.serverMetadata().jwks_uri!));
    const verified = await jwtVerify(tokens.id_token!, jwks, {
      issuer: host.issuer,
      audience: config.clientMetadata().client_id,
      algorithms: ['ES256'],
    });
    expect(verified.payload.nonce).toBe(claims.nonce);
  });

  it('uses the access token at the MCP endpoint it was issued for', async () => {
    const tokens = await signIn(await registerConfidential('oidc'));
    const response = await fetch(host.mcpUrl, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${tokens.access_token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'oc', version: '1' } },
      }),
    });
    expect(response.status).toBe(200);
  });

  it('refreshes with the same scope, rotating the refresh token', async () => {
    const config = await registerConfidential('oidc');
    const tokens = await signIn(config);
    expect(tokens.refresh_token).toEqual(expect.any(String));
    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!, {
      resource: host.mcpUrl,
    });
    expect(refreshed.access_token).not.toBe(tokens.access_token);
    // OAuth 2.1 refresh-token rotation: a new one replaces the old, which is refused once the new one has
    // been used (before that, the host's reuse window would answer a repeat with the same new token).
    expect(refreshed.refresh_token).toEqual(expect.any(String));
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    expect(refreshed.scope?.split(' ').sort()).toEqual(SCOPE.split(' ').sort());
    const next = await client.refreshTokenGrant(config, refreshed.refresh_token!, { resource: host.mcpUrl });
    expect(next.refresh_token).not.toBe(refreshed.refresh_token);
    await expect(client.refreshTokenGrant(config, tokens.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
  });

  it('introspects an active access token, then revokes it and sees it inactive', async () => {
    const config = await registerConfidential('oidc');
    const tokens = await signIn(config);
    const active = await client.tokenIntrospection(config, tokens.access_token);
    expect(active.active).toBe(true);
    expect(active.client_id).toBe(config.clientMetadata().client_id);
    await client.tokenRevocation(config, tokens.access_token);
    expect((await client.tokenIntrospection(config, tokens.access_token)).active).toBe(false);
  });

  it('fetches userinfo (OIDC Core §5.3) with the access token: sub matches the id_token, profile claims present', async () => {
    const config = await registerConfidential('oidc');
    expect(config.serverMetadata().userinfo_endpoint).toBe(`${host.issuer}/userinfo`);
    const tokens = await signIn(config);
    const subject = tokens.claims()!.sub;
    // fetchUserInfo checks the answer's sub against the expected subject and fails on any mismatch.
    const userinfo = await client.fetchUserInfo(config, tokens.access_token, subject);
    expect(userinfo.sub).toBe(subject);
    expect(userinfo.preferred_username).toBe(subject);
    expect(userinfo.name).toEqual(expect.any(String));
    // The id_token carries the same profile claims.
    expect(tokens.claims()!.preferred_username).toBe(subject);
  });

  it('is refused userinfo with a revoked access token (a WWW-Authenticate challenge, invalid_token)', async () => {
    const config = await registerConfidential('oidc');
    const tokens = await signIn(config);
    await client.tokenRevocation(config, tokens.access_token);
    await expect(
      client.fetchUserInfo(config, tokens.access_token, client.skipSubjectCheck),
    ).rejects.toMatchObject({
      status: 401,
      cause: [
        expect.objectContaining({
          scheme: 'bearer',
          parameters: expect.objectContaining({ error: 'invalid_token' }),
        }),
      ],
    });
  });

  it('revokes a refresh token so it can no longer be used', async () => {
    const config = await registerConfidential('oidc');
    const tokens = await signIn(config);
    await client.tokenRevocation(config, tokens.refresh_token!);
    await expect(client.refreshTokenGrant(config, tokens.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
  });
});
