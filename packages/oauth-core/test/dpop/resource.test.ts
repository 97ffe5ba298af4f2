import { calculateJwkThumbprint } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import type { DpopRequest } from '../../src/bearer.js';
import { createMemoryStorage } from '../../src/index.js';
import {
  basic,
  createTestServer,
  ISSUER,
  json,
  postForm,
  provisionClient,
  RESOURCE,
  type TestServer,
} from '../helpers.js';
import { makeProof, type ProofKey, proofKey } from './proof-kit.js';

const SECRET = 'a-deployment-secret-of-at-least-32-bytes!';

let key: ProofKey;
let otherKey: ProofKey;
beforeAll(async () => {
  key = await proofKey();
  otherKey = await proofKey();
});

/** A user-less machine token, bound to `key` when `bound`; the resource allows machine subjects. */
async function issue(t: TestServer, bound = true): Promise<string> {
  const client = await provisionClient(t.server, { grantTypes: ['client_credentials'], scope: 'mcp:tools' });
  const headers = {
    ...basic(client.client_id, String(client.client_secret)),
    ...(bound ? { dpop: await makeProof(key, 'POST', `${ISSUER}/token`, t.clock.now()) } : {}),
  };
  const result = await t.server.token(
    postForm('/tenant/demo/token', { grant_type: 'client_credentials' }, headers),
    'demo',
  );
  let body = json(result);
  if (body.error === 'use_dpop_nonce') {
    const nonce = String(result.headers['dpop-nonce']);
    const retry = {
      ...headers,
      dpop: await makeProof(key, 'POST', `${ISSUER}/token`, t.clock.now(), { nonce }),
    };
    body = json(
      await t.server.token(
        postForm('/tenant/demo/token', { grant_type: 'client_credentials' }, retry),
        'demo',
      ),
    );
  }
  return String(body.access_token);
}

async function request(
  t: TestServer,
  token: string,
  knobs: Parameters<typeof makeProof>[4] = {},
  k = key,
): Promise<DpopRequest> {
  return {
    method: 'POST',
    dpop: await makeProof(k, 'POST', RESOURCE, t.clock.now(), { accessToken: token, ...knobs }),
  };
}

function challengeOf(result: { headers: Readonly<Record<string, string>> }): string {
  return result.headers['www-authenticate'] ?? '';
}

describe('Authorization: DPoP is accepted with a proof of the bound key (RFC 9449 §7.1)', () => {
  it('serves a bound token with a valid proof, and its AuthInfo names the token', async () => {
    const t = await createTestServer();
    const token = await issue(t);
    const resource = t.server.protectedResource('demo', { allowMachineSubjects: true });
    const access = await resource.verify(`DPoP ${token}`, await request(t, token));
    expect(access.ok).toBe(true);
    if (access.ok) {
      expect(access.claims.cnf?.jkt).toBe(await calculateJwkThumbprint(key.publicJwk, 'sha256'));
      expect(access.authInfo.token).toBe(token);
    }
  });

  it('refuses a proof of another key than the bound one (invalid_token)', async () => {
    const t = await createTestServer();
    const token = await issue(t);
    const resource = t.server.protectedResource('demo', { allowMachineSubjects: true });
    const access = await resource.verify(`DPoP ${token}`, await request(t, token, {}, otherKey));
    expect(!access.ok && access.result.status).toBe(401);
    expect(!access.ok && challengeOf(access.result)).toMatch(/DPoP .*error="invalid_token"/);
  });

  it.each([
    ['a missing proof', undefined],
    ['a proof for another token (ath)', { accessToken: 'other' }],
    ['a proof for another URL (htu)', { htu: 'https://wrong.example.com/mcp' }],
    ['a proof for another method (htm)', { htm: 'GET' }],
    ['a proof 303 s old', { iatSeconds: Date.parse('2026-03-01T12:00:00Z') / 1000 - 303 }],
  ] as const)('refuses %s with 401 invalid_dpop_proof on the DPoP challenge', async (_, knobs) => {
    const t = await createTestServer();
    const token = await issue(t);
    const resource = t.server.protectedResource('demo', { allowMachineSubjects: true });
    const dpopRequest = knobs === undefined ? { method: 'POST' } : await request(t, token, knobs);
    const access = await resource.verify(`DPoP ${token}`, dpopRequest);
    expect(access.ok).toBe(false);
    if (access.ok) return;
    expect(access.result.status).toBe(401);
    const challenge = challengeOf(access.result);
    // The error sits on the DPoP challenge only; the Bearer one keeps resource_metadata for SDK clients.
    expect(challenge).toMatch(/^Bearer realm="demo", resource_metadata="[^"]+", DPoP /);
    expect(challenge).toMatch(
      /DPoP realm="demo", resource_metadata="[^"]+", algs="[^"]+", error="invalid_dpop_proof"/,
    );
  });

  it('refuses an unbound token presented with the DPoP scheme', async () => {
    const t = await createTestServer();
    const token = await issue(t, false);
    const resource = t.server.protectedResource('demo', { allowMachineSubjects: true });
    const access = await resource.verify(`DPoP ${token}`, await request(t, token));
    expect(!access.ok && challengeOf(access.result)).toMatch(/DPoP .*error="invalid_token"/);
  });
});

describe('a DPoP-bound token presented as Bearer is refused (RFC 9449 §7.2)', () => {
  it('answers 401 invalid_token with the error on the Bearer challenge', async () => {
    const t = await createTestServer();
    const token = await issue(t);
    const resource = t.server.protectedResource('demo', { allowMachineSubjects: true });
    const access = await resource.verify(`Bearer ${token}`);
    expect(!access.ok && access.result.status).toBe(401);
    const challenge = !access.ok ? challengeOf(access.result) : '';
    expect(challenge).toMatch(/^Bearer .*error="invalid_token".*, DPoP /);
    expect(challenge.split('DPoP ')[1]).not.toContain('error=');
  });

  it('the SDK-shaped token verifier, which never sees a proof, refuses bound tokens', async () => {
    const t = await createTestServer();
    const token = await issue(t);
    await expect(t.server.tokenVerifier('demo').verifyAccessToken(token)).rejects.toMatchObject({
      code: 'invalid_token',
    });
  });

  it('a resource that requires DPoP refuses Bearer tokens and says so in its metadata', async () => {
    const t = await createTestServer();
    const token = await issue(t, false);
    const resource = t.server.protectedResource('demo', {
      allowMachineSubjects: true,
      dpopBoundAccessTokensRequired: true,
    });
    const access = await resource.verify(`Bearer ${token}`);
    expect(!access.ok && challengeOf(access.result)).toMatch(/^Bearer .*error="invalid_token"/);
    expect(await resource.metadata()).toMatchObject({ dpop_bound_access_tokens_required: true });
  });
});

/** A server that requires DPoP nonces, a bound machine token, and a resource that allows machine subjects. */
async function withResourceNonces() {
  const t = await createTestServer({ options: { dpop: { nonceSecret: SECRET } } });
  const token = await issue(t);
  const resource = t.server.protectedResource('demo', { allowMachineSubjects: true });
  return { t, token, resource };
}

describe('resource nonces are the resource’s own (RFC 9449 §9)', () => {
  it('asks for a nonce with 401 use_dpop_nonce and DPoP-Nonce, accepts the retry, refuses the AS nonce', async () => {
    const { t, token, resource } = await withResourceNonces();
    const first = await resource.verify(`DPoP ${token}`, await request(t, token));
    expect(first.ok).toBe(false);
    if (first.ok) return;
    expect(first.result.status).toBe(401);
    expect(challengeOf(first.result)).toMatch(/DPoP .*error="use_dpop_nonce"/);
    const nonce = String(first.result.headers['dpop-nonce']);
    // The authorization server's nonce of the same moment is another value: nonces do not travel.
    const asChallenge = await t.server.token(
      postForm(
        '/tenant/demo/token',
        { grant_type: 'client_credentials' },
        { dpop: await makeProof(key, 'POST', `${ISSUER}/token`, t.clock.now()) },
      ),
      'demo',
    );
    const asNonce = String(asChallenge.headers['dpop-nonce']);
    expect(asNonce).not.toBe(nonce);
    const withAsNonce = await resource.verify(`DPoP ${token}`, await request(t, token, { nonce: asNonce }));
    expect(!withAsNonce.ok && challengeOf(withAsNonce.result)).toMatch(/error="use_dpop_nonce"/);
    expect((await resource.verify(`DPoP ${token}`, await request(t, token, { nonce }))).ok).toBe(true);
  });
});

describe('a served request hands out the resource’s current nonce when the proof carried an older one (RFC 9449 §9)', () => {
  it('no dpopNonce with the current nonce; the current one with the previous step’s, and the client stays served', async () => {
    const { t, token, resource } = await withResourceNonces();
    const challenged = await resource.verify(`DPoP ${token}`, await request(t, token));
    let nonce = challenged.ok ? '' : String(challenged.result.headers['dpop-nonce']);
    const current = await resource.verify(`DPoP ${token}`, await request(t, token, { nonce }));
    expect(current.ok && current.dpopNonce).toBeUndefined();
    const handedOut: string[] = [];
    // Five steps: without the fresh nonces, the first one would be refused from the third on.
    for (let step = 0; step < 5; step++) {
      t.clock.advance(60_000);
      const access = await resource.verify(`DPoP ${token}`, await request(t, token, { nonce }));
      expect(access.ok).toBe(true);
      if (!access.ok) return;
      expect(access.dpopNonce).toMatch(/^[A-Za-z0-9_-]+$/);
      nonce = String(access.dpopNonce);
      handedOut.push(nonce);
    }
    expect(new Set(handedOut).size).toBe(5);
  });

  it('verifyAccessToken reports the fresh nonce too', async () => {
    const t = await createTestServer({ options: { dpop: { nonceSecret: SECRET } } });
    const token = await issue(t);
    const options = { allowMachineSubjects: true };
    const challenged = await t.server.verifyAccessToken('demo', `DPoP ${token}`, {
      ...options,
      request: await request(t, token),
    });
    const nonce = challenged.ok ? '' : String(challenged.result.headers['dpop-nonce']);
    t.clock.advance(60_000);
    const check = await t.server.verifyAccessToken('demo', `DPoP ${token}`, {
      ...options,
      request: await request(t, token, { nonce }),
    });
    expect(check.ok).toBe(true);
    expect(check.ok && check.dpopNonce).not.toBe(nonce);
    expect(check.ok && check.dpopNonce).toMatch(/^[A-Za-z0-9_-]+$/);
  });
});

describe('a proof is spent once across instances at a resource too', () => {
  it('the same proof replayed on a second instance sharing the store is refused', async () => {
    const storage = createMemoryStorage();
    const a = await createTestServer({ options: { storage } });
    const b = await createTestServer({ options: { storage } });
    b.tenant.signingKeys = a.tenant.signingKeys;
    const token = await issue(a);
    const dpopRequest = await request(a, token);
    const first = await a.server
      .protectedResource('demo', { allowMachineSubjects: true })
      .verify(`DPoP ${token}`, dpopRequest);
    expect(first.ok).toBe(true);
    const again = await b.server
      .protectedResource('demo', { allowMachineSubjects: true })
      .verify(`DPoP ${token}`, dpopRequest);
    expect(!again.ok && challengeOf(again.result)).toMatch(
      /error="invalid_dpop_proof", error_description="the DPoP proof was already used"/,
    );
  });
});

describe('browser clients can read DPoP-Nonce and WWW-Authenticate (CORS)', () => {
  it('token endpoint answers expose both headers', async () => {
    const t = await createTestServer();
    const result = await t.server.token(
      postForm('/tenant/demo/token', { grant_type: 'client_credentials' }, { origin: 'https://spa.example' }),
      'demo',
    );
    expect(result.headers['access-control-expose-headers']).toBe('dpop-nonce, www-authenticate');
  });
});
