import { StorageUnavailableError } from '@keyhold/core';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import type { CimdResolver } from '../../src/cimd/types.js';
import { createMemoryStorage } from '../../src/index.js';
import {
  basic,
  createTestServer,
  decodePayload,
  exchangeCode,
  ISSUER,
  json,
  obtainCode,
  postForm,
  provisionClient,
  REDIRECT_URI,
  registerClient,
  type TestServer,
} from '../helpers.js';
import { makeProof, type ProofKey, proofKey } from './proof-kit.js';

const TOKEN_URL = `${ISSUER}/token`;
const SECRET = 'a-deployment-secret-of-at-least-32-bytes!';

let key: ProofKey;
let otherKey: ProofKey;
let jkt: string;
beforeAll(async () => {
  key = await proofKey();
  otherKey = await proofKey();
  jkt = await calculateJwkThumbprint(key.publicJwk, 'sha256');
});

async function proofFor(
  t: TestServer,
  knobs: Parameters<typeof makeProof>[4] = {},
  k = key,
): Promise<string> {
  return makeProof(k, 'POST', TOKEN_URL, t.clock.now(), knobs);
}

async function refresh(t: TestServer, clientId: string, refreshToken: string, dpop?: string) {
  return t.server.token(
    postForm(
      '/tenant/demo/token',
      { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId },
      dpop === undefined ? {} : { dpop },
    ),
    'demo',
  );
}

/** The form redeeming a public client's code. */
function codeForm(clientId: string, code: string, verifier: string): Record<string, string> {
  return {
    grant_type: 'authorization_code',
    code,
    code_verifier: verifier,
    redirect_uri: REDIRECT_URI,
    client_id: clientId,
  };
}

/** A token request with `form`, carrying `dpop` as its DPoP proof when one is given. */
async function tokenWithProof(
  t: TestServer,
  form: Record<string, string>,
  dpop?: string,
  headers: Record<string, string> = {},
) {
  return t.server.token(
    postForm('/tenant/demo/token', form, { ...headers, ...(dpop === undefined ? {} : { dpop }) }),
    'demo',
  );
}

/** Redeems a public client's code at the token endpoint, with a DPoP proof when one is given. */
async function redeemCode(t: TestServer, clientId: string, code: string, verifier: string, dpop?: string) {
  return tokenWithProof(t, codeForm(clientId, code, verifier), dpop);
}

/** A public client registered on `t` and the form that redeems a fresh code of it. */
async function publicClientCode(t: TestServer) {
  const client = await registerClient(t.server, { token_endpoint_auth_method: 'none' });
  const { code, verifier } = await obtainCode(t, client.client_id);
  return { client, form: codeForm(client.client_id, code, verifier) };
}

/** A client_credentials request of a provisioned confidential client, with a DPoP proof when one is given. */
async function clientCredentials(
  t: TestServer,
  client: { client_id: string; client_secret?: string },
  dpop?: string,
) {
  const auth = basic(client.client_id, String(client.client_secret));
  return tokenWithProof(t, { grant_type: 'client_credentials' }, dpop, auth);
}

describe('a valid proof binds the issued access token to its key (RFC 9449 §5, §6.1)', () => {
  it('authorization_code: token_type DPoP and cnf.jkt = the RFC 7638 thumbprint', async () => {
    const t = await createTestServer();
    const client = await registerClient(t.server, { token_endpoint_auth_method: 'none' });
    const { code, verifier } = await obtainCode(t, client.client_id);
    const result = await exchangeCode(t, client, code, verifier, {});
    expect(json(result).token_type).toBe('Bearer');
    const second = await obtainCode(t, client.client_id);
    const bound = await redeemCode(t, client.client_id, second.code, second.verifier, await proofFor(t));
    expect(bound.status).toBe(200);
    const body = json(bound);
    expect(body.token_type).toBe('DPoP');
    expect(decodePayload(String(body.access_token)).cnf).toEqual({ jkt });
  });

  it('client_credentials: the token is bound too', async () => {
    const t = await createTestServer();
    const client = await provisionClient(t.server, { grantTypes: ['client_credentials'] });
    const result = await clientCredentials(t, client, await proofFor(t));
    expect(json(result).token_type).toBe('DPoP');
    expect(decodePayload(String(json(result).access_token)).cnf).toEqual({ jkt });
  });

  it('token exchange: the exchanged token is bound to the exchanging client key', async () => {
    const t = await createTestServer();
    const app = await registerClient(t.server, { token_endpoint_auth_method: 'none' });
    const { code, verifier } = await obtainCode(t, app.client_id, { scope: 'mcp' });
    const userToken = String(json(await exchangeCode(t, app, code, verifier)).access_token);
    const exchanger = await provisionClient(t.server, {
      grantTypes: ['urn:ietf:params:oauth:grant-type:token-exchange'],
      tokenExchangeAudiences: ['https://files.example'],
    });
    const result = await t.server.token(
      postForm(
        '/tenant/demo/token',
        {
          grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
          subject_token: userToken,
          subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
          audience: 'https://files.example',
        },
        { ...basic(exchanger.client_id, String(exchanger.client_secret)), dpop: await proofFor(t) },
      ),
      'demo',
    );
    expect(result.status).toBe(200);
    expect(json(result).token_type).toBe('DPoP');
    expect(decodePayload(String(json(result).access_token)).cnf).toEqual({ jkt });
  });

  it('introspection reports token_type DPoP and cnf for a bound token (RFC 9449 §6.2)', async () => {
    const t = await createTestServer();
    const client = await provisionClient(t.server, { grantTypes: ['client_credentials'] });
    const auth = basic(client.client_id, String(client.client_secret));
    const issued = json(await clientCredentials(t, client, await proofFor(t)));
    const introspected = json(
      await t.server.introspect(
        postForm('/tenant/demo/introspect', { token: String(issued.access_token) }, auth),
        'demo',
      ),
    );
    expect(introspected).toMatchObject({ active: true, token_type: 'DPoP', cnf: { jkt } });
  });
});

describe('the proof is checked before anything single-use is spent', () => {
  it('a code survives a bad proof and is redeemed on the retry', async () => {
    const t = await createTestServer();
    const { form } = await publicClientCode(t);
    const bad = await tokenWithProof(t, form, await proofFor(t, { htm: 'GET' }));
    expect(bad.status).toBe(400);
    expect(json(bad).error).toBe('invalid_dpop_proof');
    const retry = await tokenWithProof(t, form, await proofFor(t));
    expect(retry.status).toBe(200);
    expect(json(retry).token_type).toBe('DPoP');
  });

  it('a code survives a use_dpop_nonce answer and is redeemed with the nonce it carried', async () => {
    const t = await createTestServer({ options: { dpop: { nonceSecret: SECRET } } });
    const { form } = await publicClientCode(t);
    const challenged = await tokenWithProof(t, form, await proofFor(t));
    expect(challenged.status).toBe(400);
    expect(json(challenged).error).toBe('use_dpop_nonce');
    const nonce = challenged.headers['dpop-nonce'];
    expect(nonce).toMatch(/^[A-Za-z0-9_-]+$/);
    const retry = await t.server.token(
      postForm('/tenant/demo/token', form, { dpop: await proofFor(t, { nonce: String(nonce) }) }),
      'demo',
    );
    expect(retry.status).toBe(200);
  });

  it('a refresh token survives a nonce challenge and a bad proof', async () => {
    const t = await createTestServer({ options: { dpop: { nonceSecret: SECRET } } });
    const { client, form } = await publicClientCode(t);
    const challenged = await tokenWithProof(t, form, await proofFor(t));
    expect(json(challenged).error).toBe('use_dpop_nonce');
    const nonce = String(challenged.headers['dpop-nonce']);
    const first = await tokenWithProof(t, form, await proofFor(t, { nonce }));
    const refreshToken = String(json(first).refresh_token);
    expect(json(await refresh(t, client.client_id, refreshToken, await proofFor(t))).error).toBe(
      'use_dpop_nonce',
    );
    expect(
      json(await refresh(t, client.client_id, refreshToken, await proofFor(t, { nonce, iatSeconds: 1 })))
        .error,
    ).toBe('invalid_dpop_proof');
    const ok = await refresh(t, client.client_id, refreshToken, await proofFor(t, { nonce }));
    expect(ok.status).toBe(200);
    expect(json(ok).token_type).toBe('DPoP');
  });
});

describe("public clients' refresh tokens are bound to their key; confidential clients' are not (RFC 9449 §5)", () => {
  async function publicTokens(t: TestServer) {
    const { client, form } = await publicClientCode(t);
    const issued = await tokenWithProof(t, form, await proofFor(t));
    return { client, refreshToken: String(json(issued).refresh_token) };
  }

  it('refreshing with another key is invalid_grant and does not spend the token', async () => {
    const t = await createTestServer();
    const { client, refreshToken } = await publicTokens(t);
    const other = await refresh(t, client.client_id, refreshToken, await proofFor(t, {}, otherKey));
    expect(json(other).error).toBe('invalid_grant');
    const same = await refresh(t, client.client_id, refreshToken, await proofFor(t));
    expect(same.status).toBe(200);
    // The successor keeps the binding.
    const next = String(json(same).refresh_token);
    expect(json(await refresh(t, client.client_id, next)).error).toBe('invalid_grant');
  });

  it('refreshing without a proof is invalid_grant', async () => {
    const t = await createTestServer();
    const { client, refreshToken } = await publicTokens(t);
    expect(json(await refresh(t, client.client_id, refreshToken)).error).toBe('invalid_grant');
  });

  it("a confidential client's refresh token is not bound: it refreshes with another key", async () => {
    const t = await createTestServer();
    const client = await registerClient(t.server, { token_endpoint_auth_method: 'client_secret_basic' });
    const auth = basic(client.client_id, String(client.client_secret));
    const { code, verifier } = await obtainCode(t, client.client_id);
    const issued = json(await exchangeCode(t, client, code, verifier, {}));
    const refreshed = await t.server.token(
      postForm(
        '/tenant/demo/token',
        { grant_type: 'refresh_token', refresh_token: String(issued.refresh_token) },
        {
          ...auth,
          dpop: await proofFor(t, {}, otherKey),
        },
      ),
      'demo',
    );
    expect(refreshed.status).toBe(200);
    expect(json(refreshed).token_type).toBe('DPoP');
  });
});

describe('dpop_jkt at /authorize pins the key that may redeem the code (RFC 9449 §10)', () => {
  async function codeFor(t: TestServer, clientId: string, dpopJkt: string) {
    const result = await t.server.authorize(
      {
        method: 'GET',
        path: '/tenant/demo/authorize',
        query: new URLSearchParams({
          client_id: clientId,
          response_type: 'code',
          redirect_uri: REDIRECT_URI,
          code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
          code_challenge_method: 'S256',
          dpop_jkt: dpopJkt,
        }).toString(),
        headers: {},
        body: '',
        userId: 'user-1',
      },
      'demo',
    );
    return result;
  }

  it('a code requested with dpop_jkt is redeemed with that key, and refused with another (invalid_grant)', async () => {
    const t = await createTestServer({ tenant: { firstPartyClientIds: [] } });
    const client = await registerClient(t.server, { token_endpoint_auth_method: 'none' });
    await t.server.clients.provision('demo', {
      clientId: 'first',
      redirectUris: [REDIRECT_URI],
      grantTypes: ['authorization_code', 'refresh_token'],
      tokenEndpointAuthMethod: 'none',
    });
    t.tenant.firstPartyClientIds = ['first'];
    const verifier = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
    for (const [k, status] of [
      [otherKey, 400],
      [key, 200],
    ] as const) {
      const location = new URL(String((await codeFor(t, 'first', jkt)).headers.location));
      const code = String(location.searchParams.get('code'));
      const result = await redeemCode(t, 'first', code, verifier, await proofFor(t, {}, k));
      expect(result.status).toBe(status);
      if (status === 400) expect(json(result).error).toBe('invalid_grant');
    }
    expect(client.client_id).toBeDefined();
  });

  it('a malformed dpop_jkt is refused at /authorize', async () => {
    const t = await createTestServer();
    const client = await registerClient(t.server, { token_endpoint_auth_method: 'none' });
    const result = await codeFor(t, client.client_id, 'not a thumbprint');
    expect(String(result.headers.location)).toContain('error=invalid_request');
  });
});

describe('clients registered with dpop_bound_access_tokens must prove a key (RFC 9449 §5.2)', () => {
  it('DCR echoes the flag, and a token request without a proof is invalid_dpop_proof that keeps the code', async () => {
    const t = await createTestServer();
    const client = await registerClient(t.server, {
      token_endpoint_auth_method: 'none',
      dpop_bound_access_tokens: true,
    });
    expect(client.dpop_bound_access_tokens).toBe(true);
    const { code, verifier } = await obtainCode(t, client.client_id);
    const refused = await exchangeCode(t, client, code, verifier, {});
    expect(refused.status).toBe(400);
    expect(json(refused).error).toBe('invalid_dpop_proof');
    const retry = await redeemCode(t, client.client_id, code, verifier, await proofFor(t));
    expect(retry.status).toBe(200);
  });

  it('a code presented without a proof under an unknown client_id is still taken (it has leaked)', async () => {
    const t = await createTestServer();
    const client = await registerClient(t.server, { token_endpoint_auth_method: 'none' });
    const { code, verifier } = await obtainCode(t, client.client_id);
    const stolen = await exchangeCode(t, { client_id: 'nobody' }, code, verifier, {});
    expect(json(stolen).error).toBe('invalid_client');
    expect(json(await exchangeCode(t, client, code, verifier, {})).error).toBe('invalid_grant');
  });

  it('a provisioned machine client with the flag gets invalid_dpop_proof without a proof', async () => {
    const t = await createTestServer();
    const client = await provisionClient(t.server, {
      grantTypes: ['client_credentials'],
      dpopBoundAccessTokens: true,
    });
    const result = await clientCredentials(t, client);
    expect(json(result).error).toBe('invalid_dpop_proof');
  });
});

describe('a proof is single use across instances sharing the spend-once store', () => {
  it('the same proof replayed on a second instance is invalid_dpop_proof', async () => {
    const shared = createMemoryStorage();
    const a = await createTestServer({ options: { storage: shared } });
    const b = await createTestServer({ options: { storage: shared } });
    b.tenant.signingKeys = a.tenant.signingKeys;
    const client = await provisionClient(a.server, { grantTypes: ['client_credentials'] });
    const proof = await proofFor(a);
    expect((await clientCredentials(a, client, proof)).status).toBe(200);
    const replayed = await clientCredentials(b, client, proof);
    expect(json(replayed)).toMatchObject({
      error: 'invalid_dpop_proof',
      error_description: 'the DPoP proof was already used',
    });
  });

  it('a store outage fails closed with 503, never issuing a token', async () => {
    const storage = createMemoryStorage();
    const t = await createTestServer({
      options: {
        storage: {
          ...storage,
          onceStore: {
            consume: async () => {
              throw new StorageUnavailableError('once-store');
            },
            release: async () => {},
          },
        },
      },
    });
    const client = await provisionClient(t.server, { grantTypes: ['client_credentials'] });
    const result = await clientCredentials(t, client, await proofFor(t));
    expect(result.status).toBe(503);
  });
});

describe('nonces are stateless: every instance with the same secret accepts every other one', () => {
  it('a nonce from one instance is accepted by another sharing the secret, and refused by one that does not', async () => {
    const a = await createTestServer({ options: { dpop: { nonceSecret: SECRET } } });
    const b = await createTestServer({ options: { dpop: { nonceSecret: SECRET } } });
    const c = await createTestServer({ options: { dpop: { nonceSecret: `${SECRET}-other` } } });
    const issue = async (t: TestServer, dpop: string) => {
      const client = await provisionClient(t.server, { grantTypes: ['client_credentials'] });
      return clientCredentials(t, client, dpop);
    };
    const challenged = await issue(a, await proofFor(a));
    const nonce = String(challenged.headers['dpop-nonce']);
    expect((await issue(b, await proofFor(b, { nonce }))).status).toBe(200);
    const refused = await issue(c, await proofFor(c, { nonce }));
    expect(json(refused).error).toBe('use_dpop_nonce');
    expect(refused.headers['dpop-nonce']).not.toBe(nonce);
  });

  it('a nonce stays valid for two steps (two minutes) and no longer', async () => {
    const t = await createTestServer({ options: { dpop: { nonceSecret: SECRET } } });
    const client = await provisionClient(t.server, { grantTypes: ['client_credentials'] });
    const nonce = String((await clientCredentials(t, client, await proofFor(t))).headers['dpop-nonce']);
    t.clock.advance(120_000);
    expect((await clientCredentials(t, client, await proofFor(t, { nonce }))).status).toBe(200);
    t.clock.advance(60_000);
    const stale = await clientCredentials(t, client, await proofFor(t, { nonce }));
    expect(json(stale).error).toBe('use_dpop_nonce');
  });

  it('requireNonce without a nonceSecret is refused at creation', async () => {
    await expect(createTestServer({ options: { dpop: { requireNonce: true } } })).rejects.toThrow(
      /nonceSecret/,
    );
  });
});

describe('a successful token answer hands out the current nonce when the proof carried an older one (RFC 9449 §8.2)', () => {
  async function machineTokens(options: Parameters<typeof createTestServer>[0]) {
    const t = await createTestServer(options);
    const client = await provisionClient(t.server, { grantTypes: ['client_credentials'] });
    const auth = basic(client.client_id, String(client.client_secret));
    const issue = async (knobs: Parameters<typeof proofFor>[1] = {}, headers = {}) =>
      t.server.token(
        postForm(
          '/tenant/demo/token',
          { grant_type: 'client_credentials' },
          { ...auth, ...headers, dpop: await proofFor(t, knobs) },
        ),
        'demo',
      );
    return { t, issue };
  }

  it('a proof with the current nonce gets no DPoP-Nonce; one with the previous step’s gets the current one', async () => {
    const { t, issue } = await machineTokens({ options: { dpop: { nonceSecret: SECRET } } });
    const first = String((await issue()).headers['dpop-nonce']);
    const current = await issue({ nonce: first });
    expect(current.status).toBe(200);
    expect(current.headers['dpop-nonce']).toBeUndefined();
    t.clock.advance(60_000);
    const older = await issue({ nonce: first });
    expect(older.status).toBe(200);
    const next = String(older.headers['dpop-nonce']);
    expect(next).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(next).not.toBe(first);
    const rotated = await issue({ nonce: next });
    expect(rotated.status).toBe(200);
    expect(rotated.headers['dpop-nonce']).toBeUndefined();
  });

  it('a client that always moves to the nonce it is handed is never challenged again, however long it runs', async () => {
    const { t, issue } = await machineTokens({ options: { dpop: { nonceSecret: SECRET } } });
    let nonce = String((await issue()).headers['dpop-nonce']);
    // Five steps: without the fresh nonces, the first one would be refused from the third on.
    for (let step = 0; step < 5; step++) {
      t.clock.advance(60_000);
      const answer = await issue({ nonce });
      expect(answer.status, answer.body).toBe(200);
      nonce = String(answer.headers['dpop-nonce'] ?? nonce);
    }
  });

  it('a browser client can read the fresh nonce of a successful answer (CORS exposes DPoP-Nonce)', async () => {
    const { t, issue } = await machineTokens({ options: { dpop: { nonceSecret: SECRET } } });
    const first = String((await issue()).headers['dpop-nonce']);
    t.clock.advance(60_000);
    const answer = await issue({ nonce: first }, { origin: 'https://spa.example' });
    expect(answer.status).toBe(200);
    expect(answer.headers['dpop-nonce']).toBeDefined();
    expect(answer.headers['access-control-expose-headers']).toContain('dpop-nonce');
  });

  it('without required nonces a successful answer carries no DPoP-Nonce', async () => {
    const { issue } = await machineTokens({});
    const answer = await issue();
    expect(answer.status).toBe(200);
    expect(answer.headers['dpop-nonce']).toBeUndefined();
  });
});

describe('a client that must prove a key and sent no proof keeps its code, refresh token and assertion for the retry (RFC 9449 §5.2)', () => {
  /**
   * The rule's two steps: `form` without a proof is refused (400 `invalid_dpop_proof`), and the same form, with
   * the same client authentication `headers`, succeeds once a proof is added, with a DPoP-bound token.
   */
  async function expectRefusedThenRetried(
    t: TestServer,
    form: Record<string, string | undefined>,
    headers: Record<string, string> = {},
  ): Promise<void> {
    const refused = await t.server.token(postForm('/tenant/demo/token', form, headers), 'demo');
    expect(refused.status).toBe(400);
    expect(json(refused).error).toBe('invalid_dpop_proof');
    const retry = await t.server.token(
      postForm('/tenant/demo/token', form, { ...headers, dpop: await proofFor(t) }),
      'demo',
    );
    expect(retry.status, retry.body).toBe(200);
    expect(json(retry).token_type).toBe('DPoP');
  }

  const CIMD_CLIENT = 'https://app.example/oauth/client.json';
  const codeForm = (code: string, verifier: string, clientId?: string) => ({
    grant_type: 'authorization_code',
    code,
    code_verifier: verifier,
    redirect_uri: REDIRECT_URI,
    ...(clientId === undefined ? {} : { client_id: clientId }),
  });

  it('a metadata-document client whose document says dpop_bound_access_tokens redeems the same code on the retry', async () => {
    const cimdResolver: CimdResolver = {
      resolve: async () => ({
        ok: true,
        cached: false,
        document: {
          client_id: CIMD_CLIENT,
          client_name: 'Bound App',
          redirect_uris: [REDIRECT_URI],
          dpop_bound_access_tokens: true,
        },
      }),
    };
    const t = await createTestServer({ cimdResolver, tenant: { allowedCimdDomains: ['app.example'] } });
    const { code, verifier } = await obtainCode(t, CIMD_CLIENT);
    await expectRefusedThenRetried(t, codeForm(code, verifier, CIMD_CLIENT));
  });

  it('a confidential client authenticating with Basic (no client_id in the form) redeems the same code on the retry', async () => {
    const t = await createTestServer();
    const client = await registerClient(t.server, {
      token_endpoint_auth_method: 'client_secret_basic',
      dpop_bound_access_tokens: true,
    });
    const secret = String(client.client_secret);
    const { code, verifier } = await obtainCode(t, client.client_id);
    await expectRefusedThenRetried(t, codeForm(code, verifier), basic(client.client_id, secret));
  });

  it('a public client refused for a missing proof keeps its refresh token', async () => {
    const t = await createTestServer();
    const client = await registerClient(t.server, {
      token_endpoint_auth_method: 'none',
      dpop_bound_access_tokens: true,
    });
    const { code, verifier } = await obtainCode(t, client.client_id);
    const first = await t.server.token(
      postForm('/tenant/demo/token', codeForm(code, verifier, client.client_id), {
        dpop: await proofFor(t),
      }),
      'demo',
    );
    const refreshToken = String(json(first).refresh_token);
    expect(json(await refresh(t, client.client_id, refreshToken)).error).toBe('invalid_dpop_proof');
    const retry = await refresh(t, client.client_id, refreshToken, await proofFor(t));
    expect(retry.status, retry.body).toBe(200);
  });

  it('a private_key_jwt client refused for a missing proof can send the same client assertion again', async () => {
    const t = await createTestServer();
    const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
    const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' };
    const created = await t.server.clients.provision('demo', {
      grantTypes: ['client_credentials'],
      tokenEndpointAuthMethod: 'private_key_jwt',
      jwks: { keys: [{ ...jwk, kty: String(jwk.kty) }] },
      dpopBoundAccessTokens: true,
    });
    const now = Math.floor(t.clock.now() / 1000);
    const assertion = await new SignJWT({
      iss: created.clientId,
      sub: created.clientId,
      aud: ISSUER,
      iat: now,
      exp: now + 60,
      jti: 'assertion-1',
    })
      .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
      .sign(privateKey);
    const form = {
      grant_type: 'client_credentials',
      client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
      client_assertion: assertion,
    };
    await expectRefusedThenRetried(t, form);
  });
});
