import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approveInBrowser, type HostProcess, startHost } from './host.js';

const REDIRECT_URI = 'http://127.0.0.1:1/callback';
const SCOPE = 'openid profile mcp:tools offline_access';
// The host runs on plain http on loopback; oauth4webapi refuses http unless told otherwise.
const insecure = { [oauth.allowInsecureRequests]: true } as const;

let host: HostProcess;
let issuer: URL;
beforeAll(async () => {
  host = await startHost();
  issuer = new URL(host.issuer);
});
afterAll(async () => {
  await host?.stop();
});

async function discover(algorithm: 'oidc' | 'oauth2'): Promise<oauth.AuthorizationServer> {
  const response = await oauth.discoveryRequest(issuer, { ...insecure, algorithm });
  return oauth.processDiscoveryResponse(issuer, response);
}

/** A public client (PKCE, no secret) registered through RFC 7591. */
async function registerPublic(as: oauth.AuthorizationServer): Promise<oauth.Client> {
  const response = await oauth.dynamicClientRegistrationRequest(
    as,
    {
      client_name: 'oauth4webapi conformance',
      redirect_uris: [REDIRECT_URI],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    },
    insecure,
  );
  return oauth.processDynamicClientRegistrationResponse(response);
}

async function signIn(as: oauth.AuthorizationServer, client: oauth.Client) {
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const nonce = oauth.generateRandomNonce();
  const url = new URL(as.authorization_endpoint!);
  url.search = new URLSearchParams({
    client_id: client.client_id,
    redirect_uri: REDIRECT_URI,
    response_type: 'code',
    scope: SCOPE,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    nonce,
    resource: host.mcpUrl,
  }).toString();
  const callback = await approveInBrowser(url);
  // Checks state and the RFC 9207 iss parameter against the discovered issuer.
  const params = oauth.validateAuthResponse(as, client, callback, state);
  const response = await oauth.authorizationCodeGrantRequest(
    as,
    client,
    oauth.None(),
    params,
    REDIRECT_URI,
    verifier,
    { ...insecure, additionalParameters: { resource: host.mcpUrl } },
  );
  return oauth.processAuthorizationCodeResponse(as, client, response, {
    expectedNonce: nonce,
    requireIdToken: true,
  });
}

describe('oauth4webapi discovery', () => {
  it('accepts the metadata found by OpenID Connect path-append, whose issuer matches exactly', async () => {
    const as = await discover('oidc');
    expect(as.issuer).toBe(host.issuer);
    expect(as.jwks_uri).toBe(`${host.issuer}/.well-known/jwks.json`);
  });

  it('accepts the metadata found by RFC 8414 insertion, whose issuer matches exactly', async () => {
    const as = await discover('oauth2');
    expect(as.issuer).toBe(host.issuer);
    expect(as.authorization_response_iss_parameter_supported).toBe(true);
  });
});

describe('oauth4webapi as a public client (none + PKCE)', () => {
  it('registers dynamically without a secret', async () => {
    const client = await registerPublic(await discover('oauth2'));
    expect(client.client_id).toEqual(expect.any(String));
    expect(client['client_secret']).toBeUndefined();
    expect(client.token_endpoint_auth_method).toBe('none');
  });

  it('completes the authorization-code flow with iss validation and a valid id_token', async () => {
    const as = await discover('oidc');
    const client = await registerPublic(as);
    const result = await signIn(as, client);
    expect(result.token_type).toBe('bearer');
    const claims = oauth.getValidatedIdTokenClaims(result)!;
    expect(claims.iss).toBe(host.issuer);
    expect(claims.aud).toContain(client.client_id);
    expect(claims.sub).toEqual(expect.any(String));
  });

  it('refreshes with the refresh token and gets a new access token', async () => {
    const as = await discover('oidc');
    const client = await registerPublic(as);
    const tokens = await signIn(as, client);
    expect(tokens.refresh_token).toEqual(expect.any(String));
    const response = await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token!, {
      ...insecure,
      additionalParameters: { resource: host.mcpUrl },
    });
    const refreshed = await oauth.processRefreshTokenResponse(as, client, response);
    expect(refreshed.access_token).not.toBe(tokens.access_token);
  });

  it('introspects, revokes, and then introspects the access token as inactive', async () => {
    const as = await discover('oidc');
    const client = await registerPublic(as);
    const tokens = await signIn(as, client);
    const introspect = async () =>
      oauth.processIntrospectionResponse(
        as,
        client,
        await oauth.introspectionRequest(as, client, oauth.None(), tokens.access_token, insecure),
      );
    const active = await introspect();
    expect(active.active).toBe(true);
    expect(active.client_id).toBe(client.client_id);
    const revoked = await oauth.revocationRequest(as, client, oauth.None(), tokens.access_token, insecure);
    await oauth.processRevocationResponse(revoked);
    expect((await introspect()).active).toBe(false);
  });
});

describe('oauth4webapi userinfo (OIDC Core §5.3)', () => {
  it('requests userinfo with the access token and validates it against the id_token subject', async () => {
    const as = await discover('oidc');
    expect(as.userinfo_endpoint).toBe(`${host.issuer}/userinfo`);
    const client = await registerPublic(as);
    const tokens = await signIn(as, client);
    const subject = oauth.getValidatedIdTokenClaims(tokens)!.sub;
    const response = await oauth.userInfoRequest(as, client, tokens.access_token, insecure);
    const userinfo = await oauth.processUserInfoResponse(as, client, subject, response);
    expect(userinfo.sub).toBe(subject);
    expect(userinfo.preferred_username).toBe(subject);
    expect(userinfo.name).toEqual(expect.any(String));
  });

  it('sees an RFC 6750 challenge for a revoked token', async () => {
    const as = await discover('oidc');
    const client = await registerPublic(as);
    const tokens = await signIn(as, client);
    await oauth.processRevocationResponse(
      await oauth.revocationRequest(as, client, oauth.None(), tokens.access_token, insecure),
    );
    const response = await oauth.userInfoRequest(as, client, tokens.access_token, insecure);
    await expect(
      oauth.processUserInfoResponse(as, client, oauth.skipSubjectCheck, response),
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
});
