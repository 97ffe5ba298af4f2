import { StorageUnavailableError } from '@keyhold/core';
import { calculateJwkThumbprint } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import type { OAuthStorage } from '../../src/index.js';
import { createMemoryStorage, createStaticTenants, generateSigningKey } from '../../src/index.js';
import { type ProofKey, proofKey } from '../dpop/proof-kit.js';
import {
  basic,
  createTestServer,
  decodePayload,
  get,
  ISSUER,
  json,
  provisionClient,
  RESOURCE,
  type TestServer,
} from '../helpers.js';
import { mintIdJag, type TestIdp, testIdp, trustOf } from './id-jag-kit.js';
import {
  capturingLogger,
  expectBoundTo,
  JWT_BEARER,
  redeemAssertion,
  tokenEndpointProof,
} from './jwt-bearer-kit.js';
import { CI, mintWorkload, policyOf, type WorkloadKnobs, type WorkloadPolicy } from './workload-kit.js';

const API = 'https://api.example/';

let ci: TestIdp;
let stranger: TestIdp;
let spire: TestIdp;
beforeAll(async () => {
  ci = await testIdp(CI, 'ES256', 'ci-1');
  stranger = await testIdp('https://stranger.example', 'ES256', 'ci-1');
  spire = await testIdp('https://spire.example', 'RS256', 'spire-1');
});

interface Setup {
  readonly t: TestServer;
  readonly logs: Record<string, unknown>[];
}

async function setup(
  options: { policies?: WorkloadPolicy[]; policy?: Partial<WorkloadPolicy>; storage?: OAuthStorage } = {},
): Promise<Setup> {
  const logs: Record<string, unknown>[] = [];
  const t = await createTestServer({
    tenant: { scopesSupported: ['mcp:tools', 'files:read', 'files:write'], resources: [RESOURCE, API] },
    options: { logger: capturingLogger(logs), ...(options.storage ? { storage: options.storage } : {}) },
  });
  t.tenant.workloads = options.policies ?? [policyOf(ci, options.policy)];
  return { t, logs };
}

function redeem(
  s: Setup,
  assertion: string | undefined,
  extra: Record<string, string> = {},
  headers: Record<string, string> = {},
) {
  return redeemAssertion(s.t, assertion, extra, headers);
}

function mint(s: Setup, knobs: WorkloadKnobs = {}, from: TestIdp = ci): Promise<string> {
  return mintWorkload(from, s.t.clock.now(), knobs);
}

/** The wire error and the stable reason code the refusal logged. */
async function refusalOf(s: Setup, assertion: string, extra: Record<string, string> = {}) {
  const result = await redeem(s, assertion, extra);
  const reason = s.logs.findLast((entry) => entry.event === 'grant_refused')?.reason;
  return { status: result.status, error: json(result).error, reason };
}

async function accessToken(
  s: Setup,
  assertion: string,
  extra: Record<string, string> = {},
  headers: Record<string, string> = {},
) {
  const result = await redeem(s, assertion, extra, headers);
  expect(result.status, JSON.stringify(json(result))).toBe(200);
  return json(result);
}

/** Whether the tenant's resources (which allow machine subjects, as a workload's token is one) accept `access`. */
async function acceptedAtResource(s: Setup, access: string): Promise<boolean> {
  const check = await s.t.server.verifyAccessToken('demo', `Bearer ${access}`, {
    allowMachineSubjects: true,
  });
  return check.ok;
}

describe('a workload JWT under a trust policy is redeemed for a machine token (RFC 7523 §2.1, SEP-1933)', () => {
  it('issues workload:<sub>, client_id workload:<issuer>, the default resource, the ceiling, no refresh token', async () => {
    const s = await setup();
    const body = await accessToken(s, await mint(s));
    expect(body).toMatchObject({ token_type: 'Bearer', scope: 'files:read mcp:tools' });
    expect(body.refresh_token).toBeUndefined();
    const claims = decodePayload(String(body.access_token));
    expect(claims).toMatchObject({
      iss: ISSUER,
      sub: 'workload:repo:acme/app:ref:refs/heads/main',
      client_id: `workload:${CI}`,
      aud: RESOURCE,
    });
    const [grant] = await s.t.server.grants.list('demo', { userId: String(claims.sub) });
    expect(grant).toMatchObject({ kind: 'workload', clientId: `workload:${CI}`, offlineAccess: false });
    expect(claims.grant_id).toBe(grant?.grantId);
  });

  it('a principal names the subject and clientId the client_id', async () => {
    const s = await setup({ policy: { principal: 'acme-ci', clientId: 'ci-agent' } });
    const claims = decodePayload(String((await accessToken(s, await mint(s))).access_token));
    expect(claims).toMatchObject({ sub: 'workload:acme-ci', client_id: 'ci-agent' });
  });

  it('revoking the workload grant refuses its token at the resource', async () => {
    const s = await setup();
    const access = String((await accessToken(s, await mint(s))).access_token);
    const grantId = String(decodePayload(access).grant_id);
    expect((await s.t.server.grants.revoke('demo', grantId)).ok).toBe(true);
    expect(await acceptedAtResource(s, access)).toBe(false);
  });
});

describe('a blocked workload client_id is refused, and its grants revoked', () => {
  it('server.clients.block of workload:<issuer> makes the next redemption invalid_grant', async () => {
    const s = await setup();
    const access = String((await accessToken(s, await mint(s))).access_token);
    expect((await s.t.server.clients.block('demo', `workload:${CI}`)).revokedGrants).toBe(1);
    expect(json(await redeem(s, await mint(s))).error).toBe('invalid_grant');
    expect(await acceptedAtResource(s, access)).toBe(false);
  });
});

describe('the grant is advertised when a tenant has workloads, without the id-jag profile', () => {
  it('grant_types_supported gains jwt-bearer; authorization_grant_profiles_supported is absent', async () => {
    const s = await setup();
    const metadata = json(await s.t.server.authorizationServerMetadata(get('/'), 'demo'));
    expect(metadata.grant_types_supported).toContain(JWT_BEARER);
    expect(metadata.authorization_grant_profiles_supported).toBeUndefined();
  });

  it('without workloads (or without a replay store) the grant is unsupported_grant_type', async () => {
    const s = await setup();
    const assertion = await mint(s);
    delete s.t.tenant.workloads;
    expect(json(await redeem(s, assertion)).error).toBe('unsupported_grant_type');
    const { onceStore: _, ...withoutReplays } = createMemoryStorage();
    const bare = await setup({ storage: withoutReplays as OAuthStorage });
    const metadata = json(await bare.t.server.authorizationServerMetadata(get('/'), 'demo'));
    expect(metadata.grant_types_supported).not.toContain(JWT_BEARER);
    expect(json(await redeem(bare, assertion)).error).toBe('unsupported_grant_type');
  });

  it('a missing assertion is invalid_request', async () => {
    const s = await setup();
    const result = await redeem(s, undefined);
    expect(result.status).toBe(400);
    expect(json(result).error).toBe('invalid_request');
  });
});

describe('the JOSE typ chooses the pipeline: absent, JWT or JOSE for workloads; nothing else (RFC 8725 §3.11)', () => {
  for (const typ of [null, 'JWT', 'JOSE', 'application/jwt'] as const) {
    it(`typ ${String(typ)} is a workload JWT`, async () => {
      const s = await setup();
      expect((await redeem(s, await mint(s, { typ }))).status).toBe(200);
    });
  }

  for (const typ of ['at+jwt', 'dpop+jwt', 'logout+jwt', 'oauth-id-jag+jwt', 'secevent+jwt'] as const) {
    it(`typ ${typ} is invalid_grant, whatever the claims`, async () => {
      const s = await setup();
      expect(await refusalOf(s, await mint(s, { typ }))).toMatchObject({
        error: 'invalid_grant',
        reason: 'jwt_bearer.typ_not_accepted',
      });
    });
  }

  it('an ID token (nonce, at_hash, c_hash) is never a workload credential, even typed JWT', async () => {
    const s = await setup();
    for (const claim of ['nonce', 'at_hash', 'c_hash']) {
      expect(await refusalOf(s, await mint(s, { claims: { [claim]: 'x' } }))).toMatchObject({
        error: 'invalid_grant',
        reason: 'workload.id_token_refused',
      });
    }
  });
});

describe('one pipeline never accepts the other pipeline’s assertion', () => {
  async function both(): Promise<Setup & { clientId: string; secret: string }> {
    const s = await setup();
    const client = await provisionClient(s.t.server, {
      grantTypes: [JWT_BEARER] as never,
      tokenEndpointAuthMethod: 'client_secret_basic',
    });
    // The same issuer and keys are trusted as an enterprise IdP and as a workload issuer.
    s.t.tenant.enterpriseIssuers = [trustOf(ci, client.client_id)];
    return { ...s, clientId: client.client_id, secret: String(client.client_secret) };
  }

  it('an ID-JAG goes to the ID-JAG pipeline: a user token, never a workload one', async () => {
    const s = await both();
    const idJag = await mintIdJag(ci, s.clientId, s.t.clock.now(), {
      claims: { sub: 'repo:acme/app:ref:refs/heads/main' },
    });
    // Without client authentication the ID-JAG pipeline refuses; the workload policy would have accepted it.
    expect((await redeem(s, idJag)).status).toBe(401);
    const body = await accessToken(s, idJag, {}, basic(s.clientId, s.secret));
    expect(decodePayload(String(body.access_token)).sub).toBe('repo:acme/app:ref:refs/heads/main');
  });

  it('a workload JWT carrying every ID-JAG claim is a workload token, never a user token', async () => {
    const s = await both();
    const jwt = await mint(s, { claims: { client_id: s.clientId, sub: 'repo:acme/alice' } });
    const body = await accessToken(s, jwt, {}, basic(s.clientId, s.secret));
    expect(decodePayload(String(body.access_token)).sub).toBe('workload:repo:acme/alice');
  });

  it('a tenant with only enterprise IdPs refuses a workload JWT; one with only workloads refuses an ID-JAG', async () => {
    const s = await both();
    const workloads = s.t.tenant.workloads;
    delete s.t.tenant.workloads;
    expect(await refusalOf(s, await mint(s))).toMatchObject({ reason: 'jwt_bearer.typ_not_accepted' });
    s.t.tenant.workloads = workloads as WorkloadPolicy[];
    delete s.t.tenant.enterpriseIssuers;
    const idJag = await mintIdJag(ci, s.clientId, s.t.clock.now(), {
      claims: { sub: 'repo:acme/app' },
    });
    expect(await refusalOf(s, idJag)).toMatchObject({
      error: 'invalid_grant',
      reason: 'jwt_bearer.typ_not_accepted',
    });
  });
});

describe('the issuer is trusted and the signature verified under an explicit alg allow-list', () => {
  it('an issuer no policy names is invalid_grant', async () => {
    const s = await setup();
    expect(await refusalOf(s, await mint(s, {}, stranger))).toMatchObject({
      error: 'invalid_grant',
      reason: 'workload.issuer_not_trusted',
    });
  });

  it('a JWT signed by another key under the trusted issuer name and kid is invalid_grant', async () => {
    const s = await setup();
    const impostor = await testIdp(CI, 'ES256', 'ci-1');
    expect(await refusalOf(s, await mint(s, {}, impostor))).toMatchObject({
      error: 'invalid_grant',
      reason: 'workload.signature_failed',
    });
  });

  it('a tampered signature is invalid_grant', async () => {
    const s = await setup();
    expect(await refusalOf(s, await mint(s, { tamperSignature: true }))).toMatchObject({
      reason: 'workload.signature_failed',
    });
  });

  it('an alg the policy does not list is invalid_grant; none is never accepted', async () => {
    const s = await setup({ policy: { algorithms: ['RS256'] } });
    expect(await refusalOf(s, await mint(s))).toMatchObject({ reason: 'workload.alg_not_allowed' });
    const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const now = Math.floor(s.t.clock.now() / 1000);
    const unsigned = `${encode({ alg: 'none' })}.${encode({ iss: CI, sub: 'repo:acme/a', aud: ISSUER, exp: now + 60, iat: now, jti: 'j' })}.`;
    expect(await refusalOf(s, unsigned)).toMatchObject({
      error: 'invalid_grant',
      reason: 'workload.alg_not_allowed',
    });
  });

  it('a kid the issuer never published is invalid_grant', async () => {
    const s = await setup();
    expect(await refusalOf(s, await mint(s, { kid: 'unknown' }))).toMatchObject({
      reason: 'workload.key_not_found',
    });
  });

  it('a jwksUri key set that cannot be fetched is invalid_grant, not a 500', async () => {
    const logs: Record<string, unknown>[] = [];
    const t = await createTestServer({
      tenant: { resources: [RESOURCE] },
      options: {
        logger: capturingLogger(logs),
        jwksResolver: { resolve: async () => ({ ok: false, description: 'unusable' }) },
      },
    });
    t.tenant.workloads = [{ ...policyOf(ci), jwks: undefined, jwksUri: `${CI}/jwks` } as never];
    expect(await refusalOf({ t, logs }, await mintWorkload(ci, t.clock.now()))).toMatchObject({
      error: 'invalid_grant',
      reason: 'workload.jwks_unreachable',
    });
  });

  it('keys published at jwksUri are fetched through the server’s key-set fetch', async () => {
    const fetched: string[] = [];
    const logs: Record<string, unknown>[] = [];
    const t = await createTestServer({
      tenant: { resources: [RESOURCE] },
      options: {
        logger: capturingLogger(logs),
        jwksResolver: {
          resolve: async (uri) => {
            fetched.push(uri);
            return { ok: true, keys: [ci.publicJwk] as never, cached: false };
          },
        },
      },
    });
    t.tenant.workloads = [{ ...policyOf(ci), jwks: undefined, jwksUri: `${CI}/jwks` } as never];
    expect((await redeem({ t, logs }, await mintWorkload(ci, t.clock.now()))).status).toBe(200);
    expect(fetched).toEqual([`${CI}/jwks`]);
  });
});

describe('aud is one value: the tenant issuer (with or without a trailing slash) or its token endpoint', () => {
  for (const [name, aud] of [
    ['the issuer', ISSUER],
    ['the issuer with a trailing slash', `${ISSUER}/`],
    ['the token endpoint', `${ISSUER}/token`],
    ['a one-element array', [ISSUER]],
  ] as const) {
    it(`${name} is accepted`, async () => {
      const s = await setup();
      expect((await redeem(s, await mint(s, { claims: { aud } }))).status).toBe(200);
    });
  }

  for (const [name, aud] of [
    ['two audiences, one of them right', [ISSUER, 'https://other.example']],
    ['a foreign server', 'https://other.example'],
    ['the resource', RESOURCE],
    ['a longer issuer sharing its prefix', `${ISSUER}.evil`],
  ] as const) {
    it(`${name} is invalid_grant`, async () => {
      const s = await setup();
      expect(await refusalOf(s, await mint(s, { claims: { aud } }))).toMatchObject({
        error: 'invalid_grant',
        reason: 'workload.audience_mismatch',
      });
    });
  }

  it('a policy with audiences accepts those and no longer the defaults', async () => {
    const s = await setup({ policy: { audiences: ['sts.example'] } });
    expect((await redeem(s, await mint(s, { claims: { aud: 'sts.example' } }))).status).toBe(200);
    expect(await refusalOf(s, await mint(s))).toMatchObject({ reason: 'workload.audience_mismatch' });
  });
});

describe('lifetime: unexpired, at most maxLifetimeSeconds (default 3600) after iat, iat not in the future', () => {
  it('an expired JWT is invalid_grant', async () => {
    const s = await setup();
    const assertion = await mint(s);
    s.t.clock.advance(601_000 + 60_000);
    expect(await refusalOf(s, assertion)).toMatchObject({
      error: 'invalid_grant',
      reason: 'workload.expired',
    });
  });

  it('exp more than 3600 s (+ skew) after iat is invalid_grant', async () => {
    const s = await setup();
    const iat = Math.floor(s.t.clock.now() / 1000);
    expect(await refusalOf(s, await mint(s, { claims: { exp: iat + 3600 + 61 } }))).toMatchObject({
      reason: 'workload.lifetime_too_long',
    });
    expect((await redeem(s, await mint(s, { claims: { exp: iat + 3600 } }))).status).toBe(200);
  });

  it('maxLifetimeSeconds tightens the bound', async () => {
    const s = await setup({ policy: { maxLifetimeSeconds: 300, clockSkewSeconds: 0 } });
    expect(await refusalOf(s, await mint(s))).toMatchObject({ reason: 'workload.lifetime_too_long' });
  });

  it('iat in the future beyond the skew is invalid_grant', async () => {
    const s = await setup();
    const iat = Math.floor(s.t.clock.now() / 1000) + 120;
    expect(await refusalOf(s, await mint(s, { claims: { iat, exp: iat + 60 } }))).toMatchObject({
      reason: 'workload.issued_in_future',
    });
  });

  it('a missing iat is invalid_grant unless the policy waives it; then exp − now is bounded', async () => {
    const s = await setup();
    expect(await refusalOf(s, await mint(s, { omit: ['iat'] }))).toMatchObject({
      reason: 'workload.claim_invalid',
    });
    const lax = await setup({ policy: { requireIat: false } });
    expect((await redeem(lax, await mint(lax, { omit: ['iat'] }))).status).toBe(200);
    const now = Math.floor(lax.t.clock.now() / 1000);
    expect(
      await refusalOf(lax, await mint(lax, { omit: ['iat'], claims: { exp: now + 7200 } })),
    ).toMatchObject({ reason: 'workload.lifetime_too_long' });
  });
});

describe('jti: required by default, and when present spent once across instances', () => {
  it('a missing jti is invalid_grant', async () => {
    const s = await setup();
    expect(await refusalOf(s, await mint(s, { omit: ['jti'] }))).toMatchObject({
      error: 'invalid_grant',
      reason: 'workload.claim_invalid',
    });
  });

  it('the same JWT twice is invalid_grant the second time', async () => {
    const s = await setup();
    const assertion = await mint(s);
    expect((await redeem(s, assertion)).status).toBe(200);
    expect(await refusalOf(s, assertion)).toMatchObject({
      error: 'invalid_grant',
      reason: 'workload.replayed',
    });
  });

  it('a policy waiving jti still spends one that is present', async () => {
    const s = await setup({ policy: { requireJti: false } });
    expect((await redeem(s, await mint(s, { omit: ['jti'] }))).status).toBe(200);
    const assertion = await mint(s);
    expect((await redeem(s, assertion)).status).toBe(200);
    expect(await refusalOf(s, assertion)).toMatchObject({ reason: 'workload.replayed' });
  });

  it('a JWT redeemed at one instance is refused at another sharing the store', async () => {
    const storage = createMemoryStorage();
    const first = await setup({ storage });
    const second = await setup({ storage });
    const assertion = await mint(first);
    expect((await redeem(first, assertion)).status).toBe(200);
    expect(await refusalOf(second, assertion)).toMatchObject({ reason: 'workload.replayed' });
  });

  it('a refused JWT is not spent: it is redeemed once the request fits the policy', async () => {
    const s = await setup();
    const assertion = await mint(s);
    expect(json(await redeem(s, assertion, { scope: 'files:write' })).error).toBe('invalid_scope');
    expect((await redeem(s, assertion)).status).toBe(200);
  });

  it('a spend-once store outage fails closed: 503, no token', async () => {
    const storage = createMemoryStorage();
    const failing = {
      ...storage,
      onceStore: {
        ...storage.onceStore,
        consume: async () => {
          throw new StorageUnavailableError('redis:once');
        },
      },
    } as OAuthStorage;
    const s = await setup({ storage: failing });
    const result = await redeem(s, await mint(s));
    expect(result.status).toBe(503);
    expect(json(result).access_token).toBeUndefined();
  });
});

describe('subject: exact, a glob with *, or a map of claim paths to exact values', () => {
  for (const [name, subject, sub, accepted] of [
    ['an exact subject', 'repo:acme/app', 'repo:acme/app', true],
    ['an exact subject, another sub', 'repo:acme/app', 'repo:acme/app2', false],
    [
      'a glob, any branch of any repository of acme',
      'repo:acme/*',
      'repo:acme/app:ref:refs/heads/main',
      true,
    ],
    ['a glob, another organisation sharing the prefix', 'repo:acme/*', 'repo:acmeevil/app', false],
    ['a glob, acme further along', 'repo:acme/*', 'repo:other/acme/app', false],
    ['a glob in the middle', 'repo:acme/*:ref:refs/heads/main', 'repo:acme/app:ref:refs/heads/main', true],
    [
      'a glob in the middle, another branch',
      'repo:acme/*:ref:refs/heads/main',
      'repo:acme/app:ref:refs/heads/dev',
      false,
    ],
    ['regex metacharacters are literal', 'repo:acme/a.c', 'repo:acme/abc', false],
  ] as const) {
    it(`${name}: ${accepted ? 'accepted' : 'workload.subject_not_allowed'}`, async () => {
      const s = await setup({ policy: { subject } });
      const assertion = await mint(s, { claims: { sub } });
      if (accepted) expect((await redeem(s, assertion)).status).toBe(200);
      else
        expect(await refusalOf(s, assertion)).toMatchObject({
          error: 'invalid_grant',
          reason: 'workload.subject_not_allowed',
        });
    });
  }

  const kubernetes = {
    sub: 'system:serviceaccount:agents:runner',
    'kubernetes.io': { namespace: 'agents', serviceaccount: { name: 'runner' } },
  };

  it('a claim map matches nested paths (kubernetes.io.namespace) and literal dotted keys', async () => {
    const s = await setup({
      policy: {
        subject: { 'kubernetes.io.namespace': 'agents', 'kubernetes.io.serviceaccount.name': 'runner' },
      },
    });
    expect((await redeem(s, await mint(s, { claims: kubernetes }))).status).toBe(200);
  });

  it('a claim map with one value wrong, or a path missing, is invalid_grant', async () => {
    const s = await setup({ policy: { subject: { 'kubernetes.io.namespace': 'agents', sub: 'x' } } });
    expect(await refusalOf(s, await mint(s, { claims: kubernetes }))).toMatchObject({
      reason: 'workload.subject_not_allowed',
    });
    const missing = await setup({ policy: { subject: { 'kubernetes.io.pod.name': 'runner-1' } } });
    expect(await refusalOf(missing, await mint(missing, { claims: kubernetes }))).toMatchObject({
      reason: 'workload.subject_not_allowed',
    });
  });

  it('of several policies for one issuer the first the JWT satisfies wins; else the furthest refusal names it', async () => {
    const s = await setup({
      policies: [
        policyOf(ci, { subject: 'repo:acme/app', scopes: ['files:read'] }),
        policyOf(ci, { subject: 'repo:acme/web', scopes: ['mcp:tools'], principal: 'web' }),
      ],
    });
    const web = await accessToken(s, await mint(s, { claims: { sub: 'repo:acme/web' } }));
    expect(web.scope).toBe('mcp:tools');
    expect(decodePayload(String(web.access_token)).sub).toBe('workload:web');
    expect(await refusalOf(s, await mint(s, { claims: { sub: 'repo:acme/api' } }))).toMatchObject({
      reason: 'workload.subject_not_allowed',
    });
  });
});

describe('scope: the request within the policy ceiling (all of it when none is asked)', () => {
  it('a request narrows the ceiling', async () => {
    const s = await setup();
    expect((await accessToken(s, await mint(s), { scope: 'mcp:tools' })).scope).toBe('mcp:tools');
  });

  it('a scope beyond the ceiling is invalid_scope', async () => {
    const s = await setup();
    expect(await refusalOf(s, await mint(s), { scope: 'mcp:tools files:write' })).toMatchObject({
      status: 400,
      error: 'invalid_scope',
      reason: 'workload.scope_not_allowed',
    });
  });
});

describe('resources: the tenant resources the policy allows (default all)', () => {
  it('a requested resource of the tenant is the audience', async () => {
    const s = await setup();
    const body = await accessToken(s, await mint(s), { resource: API });
    expect(decodePayload(String(body.access_token)).aud).toBe(API);
  });

  it('a resource the policy does not allow is invalid_target', async () => {
    const s = await setup({ policy: { resources: [RESOURCE] } });
    expect(await refusalOf(s, await mint(s), { resource: API })).toMatchObject({
      error: 'invalid_target',
      reason: 'workload.resource_not_allowed',
    });
  });

  it('a resource the tenant does not serve is invalid_target', async () => {
    const s = await setup();
    expect(await refusalOf(s, await mint(s), { resource: 'https://elsewhere.example/' })).toMatchObject({
      error: 'invalid_target',
      reason: 'workload.resource_not_allowed',
    });
  });

  it('with none requested, a restricted policy’s token is for the resources it allows', async () => {
    const s = await setup({ policy: { resources: [API] } });
    const body = await accessToken(s, await mint(s));
    expect(decodePayload(String(body.access_token)).aud).toBe(API);
  });
});

describe('a SPIFFE policy keys on the trust domain of sub: JWT-SVIDs need no iss', () => {
  function spiffeSetup() {
    return setup({
      policies: [
        {
          spiffeTrustDomain: 'example.org',
          jwks: { keys: [spire.publicJwk as never] },
          algorithms: ['RS256'],
          subject: 'spiffe://example.org/ns/agents/*',
          requireJti: false,
          requireIat: false,
          scopes: ['mcp:tools'],
        },
      ],
    });
  }

  it('a JWT-SVID without iss, jti or iat, typ absent, is redeemed', async () => {
    const s = await spiffeSetup();
    const assertion = await mint(
      s,
      { typ: null, omit: ['iss', 'jti', 'iat'], claims: { sub: 'spiffe://example.org/ns/agents/sa/runner' } },
      spire,
    );
    const claims = decodePayload(String((await accessToken(s, assertion)).access_token));
    expect(claims.sub).toBe('workload:spiffe://example.org/ns/agents/sa/runner');
  });

  for (const [name, sub] of [
    ['another trust domain', 'spiffe://other.org/ns/agents/sa/runner'],
    ['a domain sharing the prefix', 'spiffe://example.org.evil/ns/agents/sa/runner'],
    ['the bare trust domain', 'spiffe://example.org/'],
  ] as const) {
    it(`${name} is not trusted`, async () => {
      const s = await spiffeSetup();
      const assertion = await mint(s, { omit: ['iss'], claims: { sub } }, spire);
      expect(await refusalOf(s, assertion)).toMatchObject({
        error: 'invalid_grant',
        reason: 'workload.issuer_not_trusted',
      });
    });
  }

  it('a SVID of the domain outside the subject glob is invalid_grant', async () => {
    const s = await spiffeSetup();
    const assertion = await mint(
      s,
      { omit: ['iss'], claims: { sub: 'spiffe://example.org/ns/web/sa/x' } },
      spire,
    );
    expect(await refusalOf(s, assertion)).toMatchObject({ reason: 'workload.subject_not_allowed' });
  });
});

describe('client authentication is optional; a client that presents credentials is authenticated', () => {
  async function withClient(grantTypes: string[] = [JWT_BEARER]) {
    const s = await setup();
    const client = await provisionClient(s.t.server, {
      grantTypes: grantTypes as never,
      tokenEndpointAuthMethod: 'client_secret_basic',
    });
    return { s, clientId: client.client_id, secret: String(client.client_secret) };
  }

  it('an authenticated client registered for the grant is the token’s client_id', async () => {
    const { s, clientId, secret } = await withClient();
    const body = await accessToken(s, await mint(s), {}, basic(clientId, secret));
    expect(decodePayload(String(body.access_token)).client_id).toBe(clientId);
  });

  it('a wrong secret is invalid_client, never ignored', async () => {
    const { s, clientId } = await withClient();
    const result = await redeem(s, await mint(s), {}, basic(clientId, 'wrong'));
    expect(result.status).toBe(401);
    expect(json(result).error).toBe('invalid_client');
  });

  it('a client not registered for jwt-bearer is unauthorized_client', async () => {
    const { s, clientId, secret } = await withClient(['client_credentials']);
    const result = await redeem(s, await mint(s), {}, basic(clientId, secret));
    expect(json(result).error).toBe('unauthorized_client');
  });

  it('a bare client_id (a workload SDK’s own id) is not authentication and is ignored', async () => {
    const s = await setup();
    const body = await accessToken(s, await mint(s), { client_id: 'conformance-wif-workload' });
    expect(decodePayload(String(body.access_token)).client_id).toBe(`workload:${CI}`);
  });
});

describe('DPoP binds the workload token when a proof is sent (RFC 9449 §5)', () => {
  let key: ProofKey;
  beforeAll(async () => {
    key = await proofKey();
  });

  it('a valid proof gives token_type DPoP and cnf.jkt', async () => {
    const s = await setup();
    const dpop = await tokenEndpointProof(s.t, key);
    const body = await accessToken(s, await mint(s), {}, { dpop });
    await expectBoundTo(body, key);
  });

  it('a JWT bound by cnf.jkt is refused without a proof by that key', async () => {
    const s = await setup();
    const jkt = await calculateJwkThumbprint(key.publicJwk, 'sha256');
    expect(await refusalOf(s, await mint(s, { claims: { cnf: { jkt } } }))).toMatchObject({
      reason: 'workload.cnf_mismatch',
    });
  });
});

describe('workload:… is a machine subject: only resources that allow machine subjects accept it', () => {
  it('refused by default with the machine-clients 403, accepted with allowMachineSubjects, never at userinfo', async () => {
    const s = await setup({ policy: { scopes: ['mcp:tools', 'openid'] } });
    s.t.tenant.scopesSupported = ['mcp:tools', 'openid'];
    const access = String((await accessToken(s, await mint(s))).access_token);
    const refused = await s.t.server.verifyAccessToken('demo', `Bearer ${access}`);
    expect(refused.ok).toBe(false);
    if (!refused.ok) {
      expect(refused.result.status).toBe(403);
      expect(json(refused.result).error_description).toMatch(/machine clients are not accepted/);
    }
    expect(await acceptedAtResource(s, access)).toBe(true);
    const userinfo = await s.t.server.userinfo(
      get('/tenant/demo/userinfo', { authorization: `Bearer ${access}` }),
      'demo',
    );
    expect(userinfo.status).toBe(401);
  });
});

describe('the MCP SDK token verifier names a workload token’s subject type workload', () => {
  it('extra.subjectType is workload, extra.sub workload:<sub>', async () => {
    const s = await setup();
    const access = String((await accessToken(s, await mint(s))).access_token);
    const info = await s.t.server.tokenVerifier('demo').verifyAccessToken(access);
    expect(info.extra).toMatchObject({
      sub: 'workload:repo:acme/app:ref:refs/heads/main',
      subjectType: 'workload',
    });
  });
});

describe('refusals are logged with their reason, never with token material', () => {
  it('the grant_refused log carries the reason and no part of the assertion', async () => {
    const s = await setup();
    const assertion = await mint(s, { claims: { aud: 'https://other.example' } });
    await redeem(s, assertion);
    expect(s.logs.find((entry) => entry.event === 'grant_refused')).toMatchObject({
      reason: 'workload.audience_mismatch',
      error: 'invalid_grant',
    });
    expect(JSON.stringify(s.logs)).not.toContain(assertion.split('.')[1]);
  });
});

describe('workloads are checked when the tenant is created; errors name the entry', () => {
  const cases: [string, Record<string, unknown>][] = [
    ['both issuer and spiffeTrustDomain', { spiffeTrustDomain: 'example.org' }],
    ['neither issuer nor spiffeTrustDomain', { issuer: undefined }],
    ['an upper-case trust domain', { issuer: undefined, spiffeTrustDomain: 'Example.org' }],
    ['neither jwks nor jwksUri', { jwks: undefined }],
    ['an http jwksUri', { jwks: undefined, jwksUri: 'http://ci.example/jwks' }],
    ['alg HS256', { algorithms: ['HS256'] }],
    ['an empty subject', { subject: '' }],
    ['an empty claim map', { subject: {} }],
    ['a claim map with a number', { subject: { 'kubernetes.io.namespace': 3 } }],
    ['maxLifetimeSeconds 0', { maxLifetimeSeconds: 0 }],
    ['clockSkewSeconds 3600', { clockSkewSeconds: 3600 }],
    ['a resource that is no URL', { resources: ['api'] }],
    ['no scopes array', { scopes: 'mcp:tools' }],
    ['requireJti "no"', { requireJti: 'no' }],
  ];
  for (const [name, change] of cases) {
    it(`${name} throws ERR_INVALID_OPTIONS naming workloads[0]`, async () => {
      const signingKeys = [await generateSigningKey('ES256', 'k1')];
      const entry = { ...policyOf(ci), ...change };
      expect(() => createStaticTenants({ demo: { signingKeys, workloads: [entry as never] } })).toThrow(
        /workloads\[0\]/,
      );
    });
  }
});
