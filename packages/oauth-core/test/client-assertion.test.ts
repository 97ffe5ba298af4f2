import type { Logger } from '@keyhold/core';
import { createManualClock } from '@keyhold/core';
import type { CryptoKey } from 'jose';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createJwksResolver } from '../src/cimd/jwks-resolver.js';
import { CLIENT_ASSERTION_TYPE_JWT_BEARER } from '../src/client-assertion.js';
import type { ClientAssertionAlgorithm } from '../src/client-keys.js';
import { CLIENT_ASSERTION_ALGORITHMS } from '../src/client-keys.js';
import { createMemoryStorage } from '../src/index.js';
import type { ClientJwk } from '../src/storage.js';
import type { TestServer } from './helpers.js';
import {
  basic,
  createTestServer,
  ISSUER,
  json,
  obtainCode,
  postForm,
  REDIRECT_URI,
  registerClient,
} from './helpers.js';

const TOKEN_ENDPOINT = `${ISSUER}/token`;

interface KeyPair {
  readonly alg: ClientAssertionAlgorithm;
  readonly kid: string;
  readonly privateKey: CryptoKey;
  readonly jwk: ClientJwk;
}

async function keyPair(alg: ClientAssertionAlgorithm, kid: string): Promise<KeyPair> {
  const { publicKey, privateKey } = await generateKeyPair(alg, { extractable: true });
  const exported = await exportJWK(publicKey);
  return { alg, kid, privateKey, jwk: { ...exported, kty: String(exported.kty), kid, alg, use: 'sig' } };
}

let jtiCounter = 0;

/** A client assertion (RFC 7523 §3) for `clientId`, valid unless the overrides say otherwise. */
async function assertionFor(
  t: TestServer,
  clientId: string,
  key: KeyPair,
  claims: Record<string, unknown> = {},
  header: Record<string, unknown> = {},
): Promise<string> {
  const now = Math.floor(t.clock.now() / 1000);
  jtiCounter += 1;
  return new SignJWT({
    iss: clientId,
    sub: clientId,
    aud: ISSUER,
    iat: now,
    exp: now + 60,
    jti: `jti-${jtiCounter}`,
    ...claims,
  })
    .setProtectedHeader({ alg: key.alg, kid: key.kid, ...header })
    .sign(key.privateKey);
}

function unsecured(claims: Record<string, unknown>): string {
  const part = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'none' })}.${part(claims)}.`;
}

function machineRequest(assertion: string, extra: Record<string, string> = {}, headers = {}) {
  return postForm(
    '/tenant/demo/token',
    {
      grant_type: 'client_credentials',
      client_assertion_type: CLIENT_ASSERTION_TYPE_JWT_BEARER,
      client_assertion: assertion,
      ...extra,
    },
    headers,
  );
}

async function machineClient(keys: readonly KeyPair[], overrides: Partial<TestServer> = {}) {
  const lines: string[] = [];
  const record =
    (level: string): Logger['info'] =>
    (fields, message) =>
      lines.push(`${level} ${message ?? ''} ${JSON.stringify(fields)}`);
  const logger: Logger = {
    debug: record('debug'),
    info: record('info'),
    warn: record('warn'),
    error: record('error'),
  };
  const t = await createTestServer({ options: { logger } });
  const created = await t.server.clients.provision('demo', {
    grantTypes: ['client_credentials'],
    tokenEndpointAuthMethod: 'private_key_jwt',
    jwks: { keys: keys.map((key) => key.jwk) },
    scope: 'reports:read',
  });
  return { t: { ...t, ...overrides }, clientId: created.clientId, record: created.record, lines };
}

async function expectInvalidClient(
  result: Promise<{ status: number; body?: string }>,
  description: RegExp,
): Promise<void> {
  const answered = await result;
  expect(answered.status, answered.body).toBe(401);
  const body = json(answered as never);
  expect(body.error).toBe('invalid_client');
  expect(String(body.error_description)).toMatch(description);
}

describe('RFC 7523 §2.2: private_key_jwt authenticates a client with a signed JWT', () => {
  it.each(CLIENT_ASSERTION_ALGORITHMS)('accepts an assertion signed with %s', async (alg) => {
    const key = await keyPair(alg, `k-${alg}`);
    const { t, clientId, record } = await machineClient([key]);
    expect(record.clientSecretHash).toBeUndefined();
    const result = await t.server.token(machineRequest(await assertionFor(t, clientId, key)), 'demo');
    expect(result.status, result.body).toBe(200);
    expect(json(result)).toMatchObject({ token_type: 'Bearer', scope: 'reports:read' });
  });

  it('provisioning a private_key_jwt client returns no secret', async () => {
    const key = await keyPair('ES256', 'k1');
    const t = await createTestServer();
    const created = await t.server.clients.provision('demo', {
      grantTypes: ['client_credentials'],
      tokenEndpointAuthMethod: 'private_key_jwt',
      jwks: { keys: [key.jwk] },
    });
    expect(created.clientSecret).toBeUndefined();
  });

  it('client_id in the form is optional, and must name the assertion subject when present (RFC 7521 §4.2)', async () => {
    const key = await keyPair('ES256', 'k1');
    const { t, clientId } = await machineClient([key]);
    const withId = await t.server.token(
      machineRequest(await assertionFor(t, clientId, key), { client_id: clientId }),
      'demo',
    );
    expect(withId.status, withId.body).toBe(200);
    await expectInvalidClient(
      t.server.token(
        machineRequest(await assertionFor(t, clientId, key), { client_id: 'someone-else' }),
        'demo',
      ),
      /client_id does not match the client assertion sub/,
    );
  });

  it('aud is the issuer identifier (draft-ietf-oauth-rfc7523bis)', async () => {
    const key = await keyPair('ES256', 'k1');
    const { t, clientId } = await machineClient([key]);
    const result = await t.server.token(
      machineRequest(await assertionFor(t, clientId, key, { aud: ISSUER })),
      'demo',
    );
    expect(result.status, result.body).toBe(200);
  });

  it('refuses the token endpoint URL, another value and a missing aud (audience injection, rfc7523bis)', async () => {
    const key = await keyPair('ES256', 'k1');
    const { t, clientId } = await machineClient([key]);
    for (const aud of [TOKEN_ENDPOINT, `${ISSUER}/`, 'https://other.example/token', undefined]) {
      await expectInvalidClient(
        t.server.token(machineRequest(await assertionFor(t, clientId, key, { aud })), 'demo'),
        /aud must be the issuer identifier \(https:\/\/auth\.example\/tenant\/demo\) alone/,
      );
    }
  });

  it('refuses aud as an array, even one holding only the issuer (rfc7523bis: a single string)', async () => {
    const key = await keyPair('ES256', 'k1');
    const { t, clientId } = await machineClient([key]);
    for (const aud of [[ISSUER], ['https://other.example', ISSUER], [TOKEN_ENDPOINT]]) {
      await expectInvalidClient(
        t.server.token(machineRequest(await assertionFor(t, clientId, key, { aud })), 'demo'),
        /aud must be the issuer identifier as a single string, not an array/,
      );
    }
  });

  it('refuses an iss or sub other than the client_id (RFC 7523 §3 items 1 and 2)', async () => {
    const key = await keyPair('ES256', 'k1');
    const { t, clientId } = await machineClient([key]);
    await expectInvalidClient(
      t.server.token(machineRequest(await assertionFor(t, clientId, key, { iss: 'someone-else' })), 'demo'),
      /iss must be the client_id/,
    );
    await expectInvalidClient(
      t.server.token(machineRequest(await assertionFor(t, clientId, key, { sub: 'someone-else' })), 'demo'),
      /unknown client/,
    );
  });

  it('refuses an expired assertion, and one without exp (RFC 7523 §3 item 4)', async () => {
    const key = await keyPair('ES256', 'k1');
    const { t, clientId } = await machineClient([key]);
    const now = Math.floor(t.clock.now() / 1000);
    await expectInvalidClient(
      t.server.token(
        machineRequest(await assertionFor(t, clientId, key, { iat: now - 600, exp: now - 120 })),
        'demo',
      ),
      /expired/,
    );
    await expectInvalidClient(
      t.server.token(machineRequest(await assertionFor(t, clientId, key, { exp: undefined })), 'demo'),
      /"exp" is missing or invalid/,
    );
  });

  it('tolerates 60 s of clock skew on exp', async () => {
    const key = await keyPair('ES256', 'k1');
    const { t, clientId } = await machineClient([key]);
    const now = Math.floor(t.clock.now() / 1000);
    const result = await t.server.token(
      machineRequest(await assertionFor(t, clientId, key, { iat: now - 100, exp: now - 30 })),
      'demo',
    );
    expect(result.status, result.body).toBe(200);
  });

  it('refuses an assertion living longer than 5 minutes, or issued in the future', async () => {
    const key = await keyPair('ES256', 'k1');
    const { t, clientId } = await machineClient([key]);
    const now = Math.floor(t.clock.now() / 1000);
    await expectInvalidClient(
      t.server.token(machineRequest(await assertionFor(t, clientId, key, { exp: now + 3600 })), 'demo'),
      /lives too long/,
    );
    await expectInvalidClient(
      t.server.token(
        machineRequest(await assertionFor(t, clientId, key, { iat: now - 3000, exp: now + 60 })),
        'demo',
      ),
      /lives too long/,
    );
    await expectInvalidClient(
      t.server.token(
        machineRequest(await assertionFor(t, clientId, key, { iat: now + 200, exp: now + 250 })),
        'demo',
      ),
      /iat is in the future/,
    );
  });

  it('a jti is single use: a replayed assertion is refused (RFC 7523 §3 item 7)', async () => {
    const key = await keyPair('ES256', 'k1');
    const { t, clientId } = await machineClient([key]);
    const assertion = await assertionFor(t, clientId, key);
    expect((await t.server.token(machineRequest(assertion), 'demo')).status).toBe(200);
    await expectInvalidClient(t.server.token(machineRequest(assertion), 'demo'), /already used/);
    await expectInvalidClient(
      t.server.token(machineRequest(await assertionFor(t, clientId, key, { jti: undefined })), 'demo'),
      /"jti" is missing or invalid/,
    );
  });

  it('refuses alg none and the symmetric HS256', async () => {
    const key = await keyPair('ES256', 'k1');
    const { t, clientId } = await machineClient([key]);
    const now = Math.floor(t.clock.now() / 1000);
    const claims = { iss: clientId, sub: clientId, aud: ISSUER, exp: now + 60, jti: 'none-1' };
    await expectInvalidClient(
      t.server.token(machineRequest(unsecured(claims)), 'demo'),
      /alg "none" is not accepted/,
    );
    const hs = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256', kid: 'k1' })
      .sign(new TextEncoder().encode('a shared secret that is long enough'));
    await expectInvalidClient(t.server.token(machineRequest(hs), 'demo'), /alg "HS256" is not accepted/);
  });

  it('refuses an assertion signed with another key under the same kid', async () => {
    const key = await keyPair('ES256', 'k1');
    const impostor = await keyPair('ES256', 'k1');
    const { t, clientId } = await machineClient([key]);
    await expectInvalidClient(
      t.server.token(machineRequest(await assertionFor(t, clientId, impostor)), 'demo'),
      /signature does not verify/,
    );
  });

  it('refuses a key jose will not verify with (RSA under 2048 bits) as invalid_client, not a 500', async () => {
    // jose will not generate or sign with such a key, so WebCrypto does both.
    const weak = await crypto.subtle.generateKey(
      {
        name: 'RSASSA-PKCS1-v1_5',
        modulusLength: 1024,
        publicExponent: new Uint8Array([1, 0, 1]),
        hash: 'SHA-256',
      },
      true,
      ['sign', 'verify'],
    );
    const { kty, n, e } = await crypto.subtle.exportKey('jwk', weak.publicKey);
    const t = await createTestServer();
    const created = await t.server.clients.provision('demo', {
      grantTypes: ['client_credentials'],
      tokenEndpointAuthMethod: 'private_key_jwt',
      jwks: { keys: [{ kty: String(kty), n, e, kid: 'weak' }] },
    });
    const clientId = created.clientId;
    const now = Math.floor(t.clock.now() / 1000);
    const part = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');
    const claims = { iss: clientId, sub: clientId, aud: ISSUER, exp: now + 60, jti: 'weak-1' };
    const input = `${part({ alg: 'RS256', kid: 'weak' })}.${part(claims)}`;
    const signature = await crypto.subtle.sign(
      'RSASSA-PKCS1-v1_5',
      weak.privateKey,
      new TextEncoder().encode(input),
    );
    const assertion = `${input}.${Buffer.from(signature).toString('base64url')}`;
    await expectInvalidClient(
      t.server.token(machineRequest(assertion), 'demo'),
      /cannot be verified|cannot be used/,
    );
  });

  it('a client that registered token_endpoint_auth_signing_alg may sign with that alg only', async () => {
    const es = await keyPair('ES256', 'es');
    const rsa = await keyPair('RS256', 'rsa');
    const t = await createTestServer();
    const created = await t.server.clients.provision('demo', {
      grantTypes: ['client_credentials'],
      tokenEndpointAuthMethod: 'private_key_jwt',
      tokenEndpointAuthSigningAlg: 'RS256',
      jwks: { keys: [es.jwk, rsa.jwk] },
    });
    const ok = await t.server.token(machineRequest(await assertionFor(t, created.clientId, rsa)), 'demo');
    expect(ok.status, ok.body).toBe(200);
    await expectInvalidClient(
      t.server.token(machineRequest(await assertionFor(t, created.clientId, es)), 'demo'),
      /declared token_endpoint_auth_signing_alg RS256, not ES256/,
    );
  });

  it('selects the key by kid; without kid, the one suitable key; several suitable keys need a kid', async () => {
    const es = await keyPair('ES256', 'es');
    const rsa = await keyPair('RS256', 'rsa');
    const { t, clientId } = await machineClient([es, rsa]);
    const noKid = async (key: KeyPair) =>
      new SignJWT({
        iss: clientId,
        sub: clientId,
        aud: ISSUER,
        exp: Math.floor(t.clock.now() / 1000) + 60,
        jti: `nokid-${key.kid}-${Math.random()}`,
      })
        .setProtectedHeader({ alg: key.alg })
        .sign(key.privateKey);
    // One EC key and one RSA key: the alg decides without a kid.
    expect((await t.server.token(machineRequest(await noKid(es)), 'demo')).status).toBe(200);
    expect((await t.server.token(machineRequest(await noKid(rsa)), 'demo')).status).toBe(200);
    await expectInvalidClient(
      t.server.token(machineRequest(await assertionFor(t, clientId, es, {}, { kid: 'nope' })), 'demo'),
      /no client key has the kid/,
    );
    const second = await keyPair('ES256', 'es2');
    const two = await machineClient([es, second]);
    const ambiguous = await new SignJWT({
      iss: two.clientId,
      sub: two.clientId,
      aud: ISSUER,
      exp: Math.floor(two.t.clock.now() / 1000) + 60,
      jti: 'ambiguous',
    })
      .setProtectedHeader({ alg: 'ES256' })
      .sign(es.privateKey);
    await expectInvalidClient(
      two.t.server.token(machineRequest(ambiguous), 'demo'),
      /must name one with kid/,
    );
  });

  it('a client uses the method it registered: no assertion for a secret client, no secret for a key client', async () => {
    const key = await keyPair('ES256', 'k1');
    const { t, clientId } = await machineClient([key]);
    await expectInvalidClient(
      t.server.token(
        postForm('/tenant/demo/token', { grant_type: 'client_credentials', client_id: clientId }),
        'demo',
      ),
      /authenticates with private_key_jwt/,
    );
    const secretClient = await t.server.clients.provision('demo', { grantTypes: ['client_credentials'] });
    await expectInvalidClient(
      t.server.token(machineRequest(await assertionFor(t, secretClient.clientId, key)), 'demo'),
      /does not authenticate with private_key_jwt/,
    );
  });

  it('an assertion with a secret is invalid_request; a wrong client_assertion_type is invalid_client', async () => {
    const key = await keyPair('ES256', 'k1');
    const { t, clientId } = await machineClient([key]);
    const both = await t.server.token(
      machineRequest(await assertionFor(t, clientId, key), {}, basic(clientId, 'secret')),
      'demo',
    );
    expect(both.status).toBe(400);
    expect(json(both).error).toBe('invalid_request');
    const half = await t.server.token(
      postForm('/tenant/demo/token', {
        grant_type: 'client_credentials',
        client_assertion: await assertionFor(t, clientId, key),
      }),
      'demo',
    );
    expect(json(half).error).toBe('invalid_request');
    await expectInvalidClient(
      t.server.token(
        machineRequest(await assertionFor(t, clientId, key), {
          client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:saml2-bearer',
        }),
        'demo',
      ),
      /client_assertion_type must be/,
    );
    await expectInvalidClient(t.server.token(machineRequest('not-a-jwt'), 'demo'), /not a JWT/);
  });

  it('without a replay store the server refuses private_key_jwt (it cannot keep jtis single use)', async () => {
    const key = await keyPair('ES256', 'k1');
    const { onceStore: _, ...storage } = createMemoryStorage();
    const t = await createTestServer({ options: { storage } });
    const created = await t.server.clients.provision('demo', {
      grantTypes: ['client_credentials'],
      tokenEndpointAuthMethod: 'private_key_jwt',
      jwks: { keys: [key.jwk] },
    });
    await expectInvalidClient(
      t.server.token(machineRequest(await assertionFor(t, created.clientId, key)), 'demo'),
      /does not accept private_key_jwt/,
    );
  });

  it('never logs the assertion', async () => {
    const key = await keyPair('ES256', 'k1');
    const { t, clientId, lines } = await machineClient([key]);
    const assertion = await assertionFor(t, clientId, key);
    await t.server.token(machineRequest(assertion), 'demo');
    await t.server.token(machineRequest(assertion), 'demo');
    const expired = await assertionFor(t, clientId, key, { exp: Math.floor(t.clock.now() / 1000) - 600 });
    await t.server.token(machineRequest(expired), 'demo');
    expect(lines.some((line) => line.includes('client assertion'))).toBe(true);
    for (const secret of [assertion, expired]) {
      for (const part of secret.split('.')) {
        expect(lines.join('\n')).not.toContain(part);
      }
    }
  });
});

describe('RFC 7591 + RFC 7523: a dynamically registered private_key_jwt client through authorization_code and refresh', () => {
  it('registers with its keys, redeems the code and refreshes with assertions; the secret-less client needs them', async () => {
    const key = await keyPair('ES256', 'dcr-1');
    const t = await createTestServer();
    const client = await registerClient(t.server, {
      token_endpoint_auth_method: 'private_key_jwt',
      jwks: { keys: [key.jwk] },
    });
    expect(client.client_secret).toBeUndefined();
    const { code, verifier } = await obtainCode(t, client.client_id, { scope: 'mcp:tools' });
    const codeForm = {
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      redirect_uri: REDIRECT_URI,
    };
    const tokens = await t.server.token(
      postForm('/tenant/demo/token', {
        ...codeForm,
        client_assertion_type: CLIENT_ASSERTION_TYPE_JWT_BEARER,
        client_assertion: await assertionFor(t, client.client_id, key),
      }),
      'demo',
    );
    expect(tokens.status, tokens.body).toBe(200);
    const refreshToken = String(json(tokens).refresh_token);
    await expectInvalidClient(
      t.server.token(
        postForm('/tenant/demo/token', {
          grant_type: 'refresh_token',
          refresh_token: refreshToken,
          client_id: client.client_id,
        }),
        'demo',
      ),
      /authenticates with private_key_jwt/,
    );
    const refreshed = await t.server.token(
      postForm('/tenant/demo/token', {
        grant_type: 'refresh_token',
        refresh_token: refreshToken,
        client_assertion_type: CLIENT_ASSERTION_TYPE_JWT_BEARER,
        client_assertion: await assertionFor(t, client.client_id, key, { aud: ISSUER }),
      }),
      'demo',
    );
    expect(refreshed.status, refreshed.body).toBe(200);
  });
});

describe('RFC 7523 §2.2 at the revocation (RFC 7009) and introspection (RFC 7662) endpoints', () => {
  it('a private_key_jwt client authenticates with an assertion and introspects as a confidential client', async () => {
    const key = await keyPair('EdDSA', 'k1');
    const { t, clientId } = await machineClient([key]);
    const issued = json(await t.server.token(machineRequest(await assertionFor(t, clientId, key)), 'demo'));
    const form = async (token: string) => ({
      token,
      client_assertion_type: CLIENT_ASSERTION_TYPE_JWT_BEARER,
      client_assertion: await assertionFor(t, clientId, key),
    });
    const introspected = await t.server.introspect(
      postForm('/tenant/demo/introspect', await form(String(issued.access_token))),
      'demo',
    );
    expect(json(introspected)).toMatchObject({ active: true, client_id: clientId });
    const revoked = await t.server.revoke(
      postForm('/tenant/demo/revoke', await form(String(issued.access_token))),
      'demo',
    );
    expect(revoked.status).toBe(200);
    const after = await t.server.introspect(
      postForm('/tenant/demo/introspect', await form(String(issued.access_token))),
      'demo',
    );
    expect(json(after)).toEqual({ active: false });
    const refused = await t.server.introspect(
      postForm('/tenant/demo/introspect', { token: 'x', client_id: clientId }),
      'demo',
    );
    expect(refused.status).toBe(401);
  });
});

describe('jwks_uri: keys fetched, cached, and refetched for an unknown kid at most once per throttle', () => {
  const JWKS_URI = 'https://keys.app.example/jwks.json';
  const network = setupServer();
  let served: ClientJwk[] = [];
  let fetches = 0;
  beforeAll(() => network.listen({ onUnhandledRequest: 'error' }));
  afterEach(() => network.resetHandlers());
  afterAll(() => network.close());

  async function setup() {
    fetches = 0;
    network.use(
      http.get(JWKS_URI, () => {
        fetches += 1;
        return HttpResponse.json({ keys: served }, { headers: { 'cache-control': 'max-age=3600' } });
      }),
    );
    const clock = createManualClock(Date.parse('2026-03-01T12:00:00Z'));
    const jwksResolver = createJwksResolver({
      // msw patches the global fetch in beforeAll, so it is looked up per call.
      fetch: (url, init) => fetch(url, init),
      clock,
      refetchThrottleSeconds: 60,
    });
    const server = await createTestServer({ options: { clock, jwksResolver } });
    const t: TestServer = { ...server, clock };
    const created = await t.server.clients.provision('demo', {
      grantTypes: ['client_credentials'],
      tokenEndpointAuthMethod: 'private_key_jwt',
      jwksUri: JWKS_URI,
    });
    return { t, clientId: created.clientId };
  }

  it('fetches once, serves later assertions from the cache, and follows a key rotation after the throttle', async () => {
    const k1 = await keyPair('ES256', 'k1');
    const k2 = await keyPair('PS256', 'k2');
    const k3 = await keyPair('ES256', 'k3');
    served = [k1.jwk];
    const { t, clientId } = await setup();
    expect((await t.server.token(machineRequest(await assertionFor(t, clientId, k1)), 'demo')).status).toBe(
      200,
    );
    expect((await t.server.token(machineRequest(await assertionFor(t, clientId, k1)), 'demo')).status).toBe(
      200,
    );
    expect(fetches).toBe(1);

    served = [k2.jwk];
    t.clock.advance(10_000);
    await expectInvalidClient(
      t.server.token(machineRequest(await assertionFor(t, clientId, k2)), 'demo'),
      /no client key has the kid/,
    );
    expect(fetches).toBe(1);

    t.clock.advance(51_000);
    expect((await t.server.token(machineRequest(await assertionFor(t, clientId, k2)), 'demo')).status).toBe(
      200,
    );
    expect(fetches).toBe(2);

    t.clock.advance(1000);
    await expectInvalidClient(
      t.server.token(machineRequest(await assertionFor(t, clientId, k3)), 'demo'),
      /no client key has the kid/,
    );
    await expectInvalidClient(
      t.server.token(machineRequest(await assertionFor(t, clientId, k3)), 'demo'),
      /no client key has the kid/,
    );
    expect(fetches).toBe(2);
  });

  it('a key set that cannot be fetched is invalid_client with a safe description', async () => {
    served = [];
    const { t, clientId } = await setup();
    const key = await keyPair('ES256', 'k1');
    await expectInvalidClient(
      t.server.token(machineRequest(await assertionFor(t, clientId, key)), 'demo'),
      /did not provide a usable JWK Set/,
    );
  });
});
