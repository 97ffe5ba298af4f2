import { createManualClock } from '@keyhold/core';
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

async function authorize(
  clientId: string,
  verifier: string,
  state: string,
  server: oauth.AuthorizationServer = as,
): Promise<URL> {
  const url = new URL(String(server.authorization_endpoint));
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

/**
 * Registers a public client, runs the browser leg, and redeems the code with a new DPoP key, answering one
 * use_dpop_nonce challenge if the server makes it (`retried` says whether it did).
 */
async function signInWithDpop(
  server: oauth.AuthorizationServer,
  metadata: { readonly client_name: string; readonly dpop_bound_access_tokens?: boolean },
) {
  const registered = await register(server, {
    redirect_uris: [REDIRECT],
    token_endpoint_auth_method: 'none',
    ...metadata,
  });
  const client: oauth.Client = { client_id: registered.client_id };
  const DPoP = oauth.DPoP(client, await oauth.generateKeyPair('ES256'));
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const params = oauth.validateAuthResponse(
    server,
    client,
    await authorize(client.client_id, verifier, state, server),
    state,
  );
  const { value: tokens, retried } = await withNonceRetry(async () =>
    oauth.processAuthorizationCodeResponse(
      server,
      client,
      await oauth.authorizationCodeGrantRequest(server, client, oauth.None(), params, REDIRECT, verifier, {
        DPoP,
        ...insecure,
      }),
    ),
  );
  return { client, DPoP, tokens, retried };
}

/**
 * A client_credentials client provisioned on `h` (scope `mcp`, client_secret_basic) with a new DPoP key;
 * `tokenRequest` asks `server` for one token, without retrying a nonce challenge.
 */
async function dpopMachineClient(h: HttpHost, server: oauth.AuthorizationServer) {
  const provisioned = await h.server.clients.provision('demo', {
    grantTypes: ['client_credentials'],
    scope: 'mcp',
  });
  const client: oauth.Client = { client_id: provisioned.clientId };
  const auth = oauth.ClientSecretBasic(String(provisioned.clientSecret));
  const DPoP = oauth.DPoP(client, await oauth.generateKeyPair('ES256'));
  const tokenRequest = async () =>
    oauth.processClientCredentialsResponse(
      server,
      client,
      await oauth.clientCredentialsGrantRequest(
        server,
        client,
        auth,
        { scope: 'mcp' },
        { DPoP, ...insecure },
      ),
    );
  return { client, auth, DPoP, tokenRequest };
}

/** A GET of `resource` with the DPoP-bound `accessToken`, proved by the `DPoP` handle (no nonce retry). */
function getWithDpop(resource: URL, accessToken: string, DPoP: oauth.DPoPHandle): Promise<Response> {
  return oauth.protectedResourceRequest(accessToken, 'GET', resource, undefined, undefined, {
    DPoP,
    ...insecure,
  });
}

describe('oauth4webapi with DPoP (RFC 9449) against a real server', () => {
  it('advertises the proof algorithms it accepts', () => {
    expect(as.dpop_signing_alg_values_supported).toContain('ES256');
  });

  it('authorization_code → resource → refresh with one key; the code survives the nonce challenge', async () => {
    // The same code is sent twice: first answered use_dpop_nonce, then redeemed (nothing spent before).
    const { client, DPoP, tokens, retried } = await signInWithDpop(as, {
      client_name: 'DPoP Client',
      dpop_bound_access_tokens: true,
    });
    expect(retried).toBe(true);
    expect(tokens.token_type).toBe('dpop');

    const resource = new URL(`${host.issuer}/mcp`);
    const call = () =>
      withNonceRetry(async () => {
        const response = await getWithDpop(resource, tokens.access_token, DPoP);
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
    const { client, auth, tokenRequest } = await dpopMachineClient(host, as);
    const { value: tokens } = await withNonceRetry(tokenRequest);
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

describe('oauth4webapi following DPoP-Nonce meets use_dpop_nonce once per server, however long it runs (RFC 9449 §8.2, §9)', () => {
  // The server's clock is moved a nonce step (a minute) between requests; oauth4webapi dates its proofs by
  // the real clock, so the run starts 150 s behind it and the proofs stay inside the ±300 s window.
  const clock = createManualClock(Date.now() - 150_000);
  let timed: HttpHost;
  let timedAs: oauth.AuthorizationServer;
  beforeAll(async () => {
    timed = await startHttpHost(
      { scopesSupported: ['mcp'] },
      { clock, dpop: { nonceSecret: 'the-e2e-deployment-secret-of-32-bytes+' } },
    );
    timedAs = await discover(timed.issuer);
  });
  afterAll(async () => {
    await timed.close();
  });

  it('at the token endpoint: a nonce challenge on the first request only, over five nonce steps', async () => {
    clock.set(Date.now() - 150_000);
    const { tokenRequest } = await dpopMachineClient(timed, timedAs);
    const first = await withNonceRetry(tokenRequest);
    expect(first.retried).toBe(true);
    // Without the fresh nonces of successful answers the first nonce would be refused from the third step on.
    for (let step = 0; step < 5; step++) {
      clock.advance(60_000);
      const tokens = await tokenRequest();
      expect(tokens.token_type).toBe('dpop');
    }
  });

  it('at the resource: a nonce challenge on the first request only, over five nonce steps', async () => {
    clock.set(Date.now() - 150_000);
    const { DPoP, tokens } = await signInWithDpop(timedAs, { client_name: 'Long-running DPoP Client' });
    const resource = new URL(`${timed.issuer}/mcp`);
    const call = async () => {
      const response = await getWithDpop(resource, tokens.access_token, DPoP);
      return response.status;
    };
    // The handle holds the authorization server's nonce; the resource's own is asked for once.
    const first = await withNonceRetry(call);
    expect(first).toEqual({ value: 200, retried: true });
    for (let step = 0; step < 5; step++) {
      clock.advance(60_000);
      expect(await call()).toBe(200);
    }
  });
});
