import { calculateJwkThumbprint } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import type { JwksResolver } from '../../src/cimd/jwks-resolver.js';
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
  postForm,
  provisionClient,
  RESOURCE,
  type TestServer,
} from '../helpers.js';
import {
  forgedIdJag,
  IDP,
  type IdJagKnobs,
  mintIdJag,
  type TestIdp,
  testIdp,
  trustOf,
} from './id-jag-kit.js';
import {
  capturingLogger,
  expectBoundTo,
  JWT_BEARER,
  redeemAssertion,
  tokenEndpointProof,
} from './jwt-bearer-kit.js';

let idp: TestIdp;
let otherIdp: TestIdp;
beforeAll(async () => {
  idp = await testIdp();
  otherIdp = await testIdp('https://other-idp.example');
});

interface Setup {
  readonly t: TestServer;
  readonly clientId: string;
  readonly secret: string;
  readonly logs: Record<string, unknown>[];
}

async function setup(
  options: {
    trust?: Partial<Parameters<typeof trustOf>[2]>;
    storage?: OAuthStorage;
    grantTypes?: string[];
    /** The IdP's keys are published at a `jwksUri`, fetched through this resolver, not inline. */
    jwksResolver?: JwksResolver;
  } = {},
): Promise<Setup> {
  const logs: Record<string, unknown>[] = [];
  const t = await createTestServer({
    tenant: { scopesSupported: ['mcp:tools', 'files:read', 'files:write'], resources: [RESOURCE] },
    options: {
      logger: capturingLogger(logs),
      ...(options.storage ? { storage: options.storage } : {}),
      ...(options.jwksResolver ? { jwksResolver: options.jwksResolver } : {}),
    },
  });
  const client = await provisionClient(t.server, {
    grantTypes: (options.grantTypes ?? [JWT_BEARER]) as never,
    tokenEndpointAuthMethod: 'client_secret_basic',
  });
  const trust = trustOf(idp, client.client_id, options.trust);
  t.tenant.enterpriseIssuers = [
    options.jwksResolver
      ? ({ ...trust, jwks: undefined, jwksUri: 'https://idp.example/jwks' } as never)
      : trust,
  ];
  return { t, clientId: client.client_id, secret: String(client.client_secret), logs };
}

function redeem(
  s: Setup,
  assertion: string | undefined,
  extra: Record<string, string> = {},
  headers: Record<string, string> = {},
) {
  return redeemAssertion(s.t, assertion, extra, { ...basic(s.clientId, s.secret), ...headers });
}

async function mint(s: Setup, knobs: IdJagKnobs = {}, from = idp): Promise<string> {
  return mintIdJag(from, s.clientId, s.t.clock.now(), knobs);
}

/** The wire error and the stable reason code the refusal logged. */
async function refusalOf(s: Setup, assertion: string, extra: Record<string, string> = {}) {
  const result = await redeem(s, assertion, extra);
  const reason = s.logs.find((entry) => entry.event === 'grant_refused')?.reason;
  return { status: result.status, error: json(result).error, reason };
}

/** What a refusal of the grant looks like: `invalid_grant`, logged with `reason`. */
function invalidGrant(reason: string) {
  return { error: 'invalid_grant', reason };
}

describe('an ID-JAG is redeemed for an access token of the local user it names (ID-JAG §4.4)', () => {
  it('issues a token for sub, the authenticated client and the asserted resource, with no refresh token', async () => {
    const s = await setup();
    const result = await redeem(s, await mint(s));
    expect(result.status).toBe(200);
    const body = json(result);
    expect(body).toMatchObject({ token_type: 'Bearer', scope: 'mcp:tools' });
    expect(body.refresh_token).toBeUndefined();
    const claims = decodePayload(String(body.access_token));
    expect(claims).toMatchObject({ iss: ISSUER, sub: 'user-1', client_id: s.clientId, aud: RESOURCE });
    const [grant] = await s.t.server.grants.list('demo', { userId: 'user-1' });
    expect(grant).toMatchObject({ kind: 'id_jag', clientId: s.clientId, offlineAccess: false });
    expect(claims.grant_id).toBe(grant?.grantId);
  });

  it('maps (iss, sub) to a local user through the federated-identity records when the issuer has users', async () => {
    const s = await setup({
      trust: {
        users: {
          findUser: async ({ issuer, subject }) =>
            issuer === IDP && subject === 'user-1' ? 'local-42' : undefined,
        },
      },
    });
    const body = json(await redeem(s, await mint(s)));
    expect(decodePayload(String(body.access_token)).sub).toBe('local-42');
    expect(await refusalOf(s, await mint(s, { claims: { sub: 'stranger' } }))).toMatchObject(
      invalidGrant('id_jag.subject_unknown'),
    );
  });

  it('refuses a sub that would pose as a machine subject (client:…, workload:…)', async () => {
    const s = await setup();
    expect(await refusalOf(s, await mint(s, { claims: { sub: 'client:abc' } }))).toMatchObject(
      invalidGrant('id_jag.subject_invalid'),
    );
  });
});

describe('the grant is advertised only when a tenant trusts an enterprise IdP (ID-JAG §7.2)', () => {
  it('grant_types_supported gains jwt-bearer and authorization_grant_profiles_supported lists id-jag', async () => {
    const s = await setup();
    const metadata = json(await s.t.server.authorizationServerMetadata(get('/'), 'demo'));
    expect(metadata.grant_types_supported).toContain(JWT_BEARER);
    expect(metadata.authorization_grant_profiles_supported).toEqual([
      'urn:ietf:params:oauth:grant-profile:id-jag',
    ]);
  });

  it('a tenant without enterpriseIssuers advertises neither and answers unsupported_grant_type', async () => {
    const s = await setup();
    const assertion = await mint(s);
    delete s.t.tenant.enterpriseIssuers;
    const metadata = json(await s.t.server.authorizationServerMetadata(get('/'), 'demo'));
    expect(metadata.grant_types_supported).not.toContain(JWT_BEARER);
    expect(metadata.authorization_grant_profiles_supported).toBeUndefined();
    expect(json(await redeem(s, assertion)).error).toBe('unsupported_grant_type');
  });
});

describe('the request is well formed and made by a client registered for the grant', () => {
  it('a missing assertion is invalid_request', async () => {
    const s = await setup();
    const result = await redeem(s, undefined);
    expect(json(result).error).toBe('invalid_request');
  });

  it('an assertion over 16 KiB is invalid_request before any verification', async () => {
    const s = await setup();
    const result = await redeem(s, `${await mint(s)}${'A'.repeat(16_384)}`);
    expect(json(result)).toMatchObject({ error: 'invalid_request' });
  });

  it('a value that is not a JWT is invalid_grant', async () => {
    const s = await setup();
    expect(await refusalOf(s, 'not-a-jwt')).toMatchObject(invalidGrant('jwt_bearer.malformed'));
  });

  it('a client not registered for jwt-bearer is unauthorized_client', async () => {
    const s = await setup({ grantTypes: ['client_credentials'] });
    expect(await refusalOf(s, await mint(s))).toMatchObject({ error: 'unauthorized_client' });
  });

  it('a client with a wrong secret is invalid_client (401)', async () => {
    const s = await setup();
    const result = await s.t.server.token(
      postForm(
        '/tenant/demo/token',
        { grant_type: JWT_BEARER, assertion: await mint(s) },
        basic(s.clientId, 'wrong'),
      ),
      'demo',
    );
    expect(result.status).toBe(401);
    expect(json(result).error).toBe('invalid_client');
  });
});

describe('only an assertion typed oauth-id-jag+jwt enters the ID-JAG pipeline (RFC 8725 §3.11)', () => {
  for (const typ of ['at+jwt', 'dpop+jwt', 'logout+jwt', 'JWT', null] as const) {
    it(`typ ${String(typ)} is invalid_grant`, async () => {
      const s = await setup();
      expect(await refusalOf(s, await mint(s, { typ }))).toMatchObject(
        invalidGrant('jwt_bearer.typ_not_accepted'),
      );
    });
  }

  it('typ application/oauth-id-jag+jwt is the same type (RFC 7515 §4.1.9)', async () => {
    const s = await setup();
    expect((await redeem(s, await mint(s, { typ: 'application/oauth-id-jag+jwt' }))).status).toBe(200);
  });
});

describe('the signature is verified with a trusted IdP key under an explicit alg allow-list', () => {
  it('an unknown issuer is invalid_grant', async () => {
    const s = await setup();
    expect(await refusalOf(s, await mint(s, {}, otherIdp))).toMatchObject(
      invalidGrant('id_jag.issuer_not_trusted'),
    );
  });

  it('an alg the issuer does not allow is invalid_grant', async () => {
    const s = await setup({ trust: { algorithms: ['RS256'] } });
    expect(await refusalOf(s, await mint(s))).toMatchObject(invalidGrant('id_jag.alg_not_allowed'));
  });

  for (const alg of ['none', 'HS256'] as const) {
    it(`alg ${alg} is never accepted`, async () => {
      const s = await setup();
      expect(await refusalOf(s, await forgedIdJag(alg, s.clientId, s.t.clock.now()))).toMatchObject(
        invalidGrant('id_jag.alg_not_allowed'),
      );
    });
  }

  it('a tampered signature is invalid_grant', async () => {
    const s = await setup();
    expect(await refusalOf(s, await mint(s, { tamperSignature: true }))).toMatchObject(
      invalidGrant('id_jag.signature_invalid'),
    );
  });

  it('a token signed by another key under the trusted issuer name and kid is invalid_grant', async () => {
    const s = await setup();
    const impostor = await testIdp(IDP, 'ES256', 'idp-1');
    expect(await refusalOf(s, await mint(s, {}, impostor))).toMatchObject(
      invalidGrant('id_jag.signature_invalid'),
    );
  });

  it('a kid the IdP never published is invalid_grant', async () => {
    const s = await setup();
    expect(await refusalOf(s, await mint(s, { kid: 'unknown' }))).toMatchObject(
      invalidGrant('id_jag.key_not_found'),
    );
  });
});

describe('aud is exactly the tenant issuer: a string or a one-element array (ID-JAG §4.4.1)', () => {
  it('a single-element array is accepted', async () => {
    const s = await setup();
    expect((await redeem(s, await mint(s, { claims: { aud: [ISSUER] } }))).status).toBe(200);
  });

  for (const [name, aud] of [
    ['two audiences', [ISSUER, 'https://other.example']],
    ['a foreign issuer', 'https://other.example'],
    ['the issuer with a trailing slash', `${ISSUER}/`],
    ['a longer issuer sharing its prefix', `${ISSUER}.evil`],
    ['the token endpoint', `${ISSUER}/token`],
  ] as const) {
    it(`${name} is invalid_grant`, async () => {
      const s = await setup();
      expect(await refusalOf(s, await mint(s, { claims: { aud } }))).toMatchObject(
        invalidGrant('id_jag.audience_mismatch'),
      );
    });
  }
});

describe('the client_id claim is the authenticated client, and one the IdP entry allows', () => {
  it('another client_id is invalid_grant', async () => {
    const s = await setup();
    expect(await refusalOf(s, await mint(s, { claims: { client_id: 'someone-else' } }))).toMatchObject(
      invalidGrant('id_jag.client_mismatch'),
    );
  });

  it('a client the IdP entry does not list is invalid_grant', async () => {
    const s = await setup({ trust: { clients: ['another-client'] } });
    expect(await refusalOf(s, await mint(s))).toMatchObject(invalidGrant('id_jag.client_not_allowed'));
  });
});

describe('resource: the asserted resource is one of the tenant, and a requested one is within it', () => {
  it('a foreign resource claim is invalid_grant', async () => {
    const s = await setup();
    expect(
      await refusalOf(s, await mint(s, { claims: { resource: 'https://other.example/mcp' } })),
    ).toMatchObject(invalidGrant('id_jag.resource_mismatch'));
  });

  it('a requested resource outside the tenant is invalid_grant', async () => {
    const s = await setup();
    expect(await refusalOf(s, await mint(s), { resource: 'https://other.example/mcp' })).toMatchObject(
      invalidGrant('id_jag.resource_mismatch'),
    );
  });

  it('without a resource claim the token is for the tenant default resource', async () => {
    const s = await setup();
    const body = json(await redeem(s, await mint(s, { omit: ['resource'] })));
    expect(decodePayload(String(body.access_token)).aud).toBe(RESOURCE);
  });
});

describe('scope: the intersection of requested and asserted scopes, never above the IdP ceiling (EMA §7.2.1)', () => {
  it('a request narrows the asserted scope', async () => {
    const s = await setup();
    const body = json(
      await redeem(s, await mint(s, { claims: { scope: 'mcp:tools files:read' } }), { scope: 'files:read' }),
    );
    expect(body.scope).toBe('files:read');
  });

  it('asserted scopes beyond the ceiling are dropped', async () => {
    const s = await setup();
    const body = json(await redeem(s, await mint(s, { claims: { scope: 'mcp:tools files:write' } })));
    expect(body.scope).toBe('mcp:tools');
  });

  it('requested scopes the assertion lacks are not granted', async () => {
    const s = await setup();
    const body = json(await redeem(s, await mint(s), { scope: 'mcp:tools files:read' }));
    expect(body.scope).toBe('mcp:tools');
  });

  it('a request none of whose scopes is granted is invalid_grant', async () => {
    const s = await setup();
    expect(await refusalOf(s, await mint(s), { scope: 'files:write' })).toMatchObject(
      invalidGrant('id_jag.scope_mismatch'),
    );
  });
});

describe('lifetime: unexpired, at most 300 s (+60 s skew), iat not in the future', () => {
  it('an expired assertion is invalid_grant', async () => {
    const s = await setup();
    const assertion = await mint(s);
    s.t.clock.advance(301_000 + 60_000);
    expect(await refusalOf(s, assertion)).toMatchObject({ error: 'invalid_grant', reason: 'id_jag.expired' });
  });

  it('exp more than 300 s after iat is invalid_grant', async () => {
    const s = await setup();
    const iat = Math.floor(s.t.clock.now() / 1000);
    expect(await refusalOf(s, await mint(s, { claims: { exp: iat + 3600 } }))).toMatchObject(
      invalidGrant('id_jag.lifetime_too_long'),
    );
  });

  it('iat in the future beyond the skew is invalid_grant', async () => {
    const s = await setup();
    const iat = Math.floor(s.t.clock.now() / 1000) + 120;
    expect(await refusalOf(s, await mint(s, { claims: { iat, exp: iat + 60 } }))).toMatchObject(
      invalidGrant('id_jag.issued_in_future'),
    );
  });

  it('a missing jti is invalid_grant', async () => {
    const s = await setup();
    expect(await refusalOf(s, await mint(s, { omit: ['jti'] }))).toMatchObject(
      invalidGrant('id_jag.claim_invalid'),
    );
  });
});

describe('jti is spent once, across every server sharing the store (EMA §7.4.2)', () => {
  it('the same assertion twice is invalid_grant the second time', async () => {
    const s = await setup();
    const assertion = await mint(s);
    expect((await redeem(s, assertion)).status).toBe(200);
    expect(await refusalOf(s, assertion)).toMatchObject(invalidGrant('id_jag.replayed'));
  });

  it('an assertion redeemed at one instance is refused at another sharing the store', async () => {
    const storage = createMemoryStorage();
    const first = await setup({ storage });
    const logs: Record<string, unknown>[] = [];
    const second = await createTestServer({
      tenant: { scopesSupported: ['mcp:tools', 'files:read'], resources: [RESOURCE] },
      options: { storage, logger: capturingLogger(logs) },
    });
    second.tenant.enterpriseIssuers = [...(first.t.tenant.enterpriseIssuers ?? [])];
    const assertion = await mint(first);
    expect((await redeem(first, assertion)).status).toBe(200);
    const replay = await redeem({ ...first, t: second, logs }, assertion);
    expect(json(replay).error).toBe('invalid_grant');
    expect(logs.find((entry) => entry.event === 'grant_refused')?.reason).toBe('id_jag.replayed');
  });

  it('a refused assertion is not spent: it is redeemed once the client asks within it', async () => {
    const s = await setup();
    const assertion = await mint(s);
    expect(json(await redeem(s, assertion, { scope: 'files:write' })).error).toBe('invalid_grant');
    expect((await redeem(s, assertion)).status).toBe(200);
  });
});

describe('DPoP binds the issued token when a proof is sent (RFC 9449 §5)', () => {
  let key: ProofKey;
  beforeAll(async () => {
    key = await proofKey();
  });

  it('a valid proof gives token_type DPoP and cnf.jkt', async () => {
    const s = await setup();
    const dpop = await tokenEndpointProof(s.t, key);
    const body = json(await redeem(s, await mint(s), {}, { dpop }));
    await expectBoundTo(body, key);
  });

  it('an assertion bound by cnf.jkt is refused without a proof by that key', async () => {
    const s = await setup();
    const jkt = await calculateJwkThumbprint(key.publicJwk, 'sha256');
    expect(await refusalOf(s, await mint(s, { claims: { cnf: { jkt } } }))).toMatchObject(
      invalidGrant('id_jag.cnf_mismatch'),
    );
    const dpop = await tokenEndpointProof(s.t, key);
    expect((await redeem(s, await mint(s, { claims: { cnf: { jkt } } }), {}, { dpop })).status).toBe(200);
  });
});

describe('reason codes are logged with the refusal, never token material', () => {
  it('the grant_refused log names the reason and carries no assertion', async () => {
    const s = await setup();
    const assertion = await mint(s, { claims: { aud: 'https://other.example' } });
    await redeem(s, assertion);
    const entry = s.logs.find((logged) => logged.event === 'grant_refused');
    expect(entry).toMatchObject({ reason: 'id_jag.audience_mismatch', error: 'invalid_grant' });
    expect(JSON.stringify(s.logs)).not.toContain(assertion.split('.')[1]);
  });
});

describe('enterpriseIssuers are checked when the tenant is created', () => {
  const cases: [string, Record<string, unknown>][] = [
    ['neither jwks nor jwksUri', { jwks: undefined }],
    ['an http jwksUri', { jwks: undefined, jwksUri: 'http://idp.example/jwks' }],
    ['no clients', { clients: [] }],
    ['alg HS256', { algorithms: ['HS256'] }],
    ['an issuer that is no URL', { issuer: 'idp' }],
  ];
  for (const [name, change] of cases) {
    it(`${name} throws ERR_INVALID_OPTIONS`, async () => {
      const signingKeys = [await generateSigningKey('ES256', 'k1')];
      const entry = { ...trustOf(idp, 'c'), ...change };
      expect(() =>
        createStaticTenants({ demo: { signingKeys, enterpriseIssuers: [entry as never] } }),
      ).toThrow(/enterpriseIssuers\[0\]/);
    });
  }
});

describe('keys published at jwksUri come through the bounded key-set fetch, refetched once for an unknown kid', () => {
  it('an assertion signed by a rotated-in key verifies after one refetch', async () => {
    const rotated = await testIdp(IDP, 'ES256', 'idp-2');
    const calls: { uri: string; refresh: boolean }[] = [];
    const s = await setup({
      jwksResolver: {
        resolve: async (uri, options) => {
          calls.push({ uri, refresh: options?.refresh === true });
          const keys = options?.refresh ? [idp.publicJwk, rotated.publicJwk] : [idp.publicJwk];
          return { ok: true, keys: keys as never, cached: false };
        },
      },
    });
    expect((await redeem(s, await mint(s, {}, rotated))).status).toBe(200);
    expect(calls).toEqual([
      { uri: 'https://idp.example/jwks', refresh: false },
      { uri: 'https://idp.example/jwks', refresh: true },
    ]);
  });

  it('a key set that cannot be fetched is invalid_grant, not a 500', async () => {
    const s = await setup({
      jwksResolver: { resolve: async () => ({ ok: false, description: 'unusable' }) },
    });
    expect(await refusalOf(s, await mint(s))).toMatchObject(invalidGrant('id_jag.keys_unavailable'));
  });
});
