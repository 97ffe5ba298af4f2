import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpHost } from './http-host.js';
import { startHttpHost, submitConsent } from './http-host.js';
import { discover, insecure, register, withNonceRetry } from './oauth4webapi-kit.js';

const REDIRECT = 'http://127.0.0.1:43210/callback';

let host: HttpHost;
let as: oauth.AuthorizationServer;
beforeAll(async () => {
  // Nonces on: every request of oauth4webapi's DPoP handle meets a use_dpop_nonce first, and retries.
  host = await startHttpHost(
    { scopesSupported: ['openid', 'mcp'] },
    { dpop: { nonceSecret: 'the-e2e-deployment-secret-of-32-bytes+' } },
  );
  as = await discover(host.issuer);
});
afterAll(async () => {
  await host.close();
});

async function authorize(clientId: string, verifier: string, state: string): Promise<URL> {
  const url = new URL(String(as.authorization_endpoint));
  url.search = new URLSearchParams({
    client_id: clientId,
    redirect_uri: REDIRECT,
    response_type: 'code',
    scope: 'mcp',
    state,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  }).toString();
  const toConsent = await fetch(url, { redirect: 'manual', headers: { cookie: 'session=alice' } });
  const consentUrl = new URL(String(toConsent.headers.get('location')));
  const decided = await submitConsent(consentUrl, { cookie: 'session=alice' });
  return new URL(String(decided.headers.get('location')));
}

describe('oauth4webapi with DPoP (RFC 9449) against a real server', () => {
  it('advertises the proof algorithms it accepts', () => {
    expect(as.dpop_signing_alg_values_supported).toContain('ES256');
  });

  it('authorization_code → resource → refresh with one key; the code survives the nonce challenge', async () => {
    const registered = await register(as, {
      redirect_uris: [REDIRECT],
      client_name: 'DPoP Client',
      token_endpoint_auth_method: 'none',
      dpop_bound_access_tokens: true,
    });
    const client: oauth.Client = { client_id: registered.client_id };
    const DPoP = oauth.DPoP(client, await oauth.generateKeyPair('ES256'));
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const params = oauth.validateAuthResponse(
      as,
      client,
      await authorize(client.client_id, verifier, state),
      state,
    );

    // The same code is sent twice: first answered use_dpop_nonce, then redeemed (nothing spent before).
    const { value: tokens, retried } = await withNonceRetry(async () =>
      oauth.processAuthorizationCodeResponse(
        as,
        client,
        await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, REDIRECT, verifier, {
          DPoP,
          ...insecure,
        }),
      ),
    );
    expect(retried).toBe(true);
    expect(tokens.token_type).toBe('dpop');

    const resource = new URL(`${host.issuer}/mcp`);
    const call = () =>
      withNonceRetry(async () => {
        const response = await oauth.protectedResourceRequest(
          tokens.access_token,
          'GET',
          resource,
          undefined,
          undefined,
          {
            DPoP,
            ...insecure,
          },
        );
        return { status: response.status, body: (await response.json()) as unknown };
      });
    const first = await call();
    expect(first.retried).toBe(true);
    expect(first.value).toEqual({ status: 200, body: { sub: 'alice' } });
    // The resource's nonce is now known to the handle: the next call goes through at once.
    expect((await call()).retried).toBe(false);

    // The bound token presented as Bearer is refused.
    const downgraded = await fetch(resource, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(downgraded.status).toBe(401);

    const { value: refreshed } = await withNonceRetry(async () =>
      oauth.processRefreshTokenResponse(
        as,
        client,
        await oauth.refreshTokenGrantRequest(as, client, oauth.None(), String(tokens.refresh_token), {
          DPoP,
          ...insecure,
        }),
      ),
    );
    expect(refreshed.token_type).toBe('dpop');

    // The public client's refresh token is bound to its key: another key cannot refresh it.
    const thief = oauth.DPoP(client, await oauth.generateKeyPair('ES256'));
    await expect(
      withNonceRetry(async () =>
        oauth.processRefreshTokenResponse(
          as,
          client,
          await oauth.refreshTokenGrantRequest(as, client, oauth.None(), String(refreshed.refresh_token), {
            DPoP: thief,
            ...insecure,
          }),
        ),
      ),
    ).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  it('client_credentials with DPoP, then introspection reports token_type DPoP and cnf', async () => {
    const provisioned = await host.server.clients.provision('demo', {
      grantTypes: ['client_credentials'],
      scope: 'mcp',
    });
    const client: oauth.Client = { client_id: provisioned.clientId };
    const auth = oauth.ClientSecretBasic(String(provisioned.clientSecret));
    const DPoP = oauth.DPoP(client, await oauth.generateKeyPair('ES256'));
    const { value: tokens } = await withNonceRetry(async () =>
      oauth.processClientCredentialsResponse(
        as,
        client,
        await oauth.clientCredentialsGrantRequest(as, client, auth, { scope: 'mcp' }, { DPoP, ...insecure }),
      ),
    );
    expect(tokens.token_type).toBe('dpop');
    const introspection = await oauth.processIntrospectionResponse(
      as,
      client,
      await oauth.introspectionRequest(as, client, auth, tokens.access_token, insecure),
    );
    expect(introspection).toMatchObject({ active: true, token_type: 'DPoP' });
    expect(introspection.cnf?.jkt).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});
