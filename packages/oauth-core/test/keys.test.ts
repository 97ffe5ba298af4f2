import { exportPKCS8, generateKeyPair } from 'jose';
import { describe, expect, it } from 'vitest';
import type { SigningAlgorithm } from '../src/index.js';
import {
  createAuthorizationServer,
  createMemoryStorage,
  generateSigningKey,
  OAuthCoreError,
} from '../src/index.js';
import {
  basic,
  createTestServer,
  decodePayload,
  json,
  postForm,
  provisionClient,
  registerClient,
} from './helpers.js';

async function clientCredentialsToken(t: Awaited<ReturnType<typeof createTestServer>>) {
  const client = await provisionClient(t.server, { grantTypes: ['client_credentials'], scope: 'mcp:tools' });
  const result = await t.server.token(
    postForm(
      '/tenant/demo/token',
      { grant_type: 'client_credentials' },
      basic(client.client_id, client.client_secret ?? ''),
    ),
    'demo',
  );
  return String(json(result).access_token);
}

describe('signing keys', () => {
  it.each(['HS256', 'HS384', 'HS512', 'RS256', 'ES256'] as SigningAlgorithm[])(
    'signs with %s and verifies what it signed',
    async (alg) => {
      const t = await createTestServer({ alg });
      const token = await clientCredentialsToken(t);
      const header = JSON.parse(Buffer.from(token.split('.')[0] ?? '', 'base64url').toString()) as Record<
        string,
        unknown
      >;
      expect(header).toEqual({ alg, kid: 'k1', typ: 'at+jwt' });
      const check = await t.server.verifyAccessToken('demo', `Bearer ${token}`, {
        allowMachineSubjects: true,
      });
      expect(check.ok).toBe(true);
    },
  );

  it('rotation: a token signed by the old key still verifies once a new key is active, and new tokens use the new key', async () => {
    const t = await createTestServer();
    const old = await clientCredentialsToken(t);
    t.tenant.signingKeys = [
      { ...(await generateSigningKey('ES256', 'k2')), active: true },
      ...t.tenant.signingKeys,
    ];
    expect(
      (await t.server.verifyAccessToken('demo', `Bearer ${old}`, { allowMachineSubjects: true })).ok,
    ).toBe(true);
    const fresh = await clientCredentialsToken(t);
    expect(JSON.parse(Buffer.from(fresh.split('.')[0] ?? '', 'base64url').toString()).kid).toBe('k2');
    // Both verify at introspection, which accepts any listed key.
    const rs = await registerClient(t.server);
    t.tenant.introspectionClientIds = [rs.client_id];
    for (const token of [old, fresh]) {
      const body = json(
        await t.server.introspect(
          postForm('/tenant/demo/introspect', { token }, basic(rs.client_id, rs.client_secret ?? '')),
          'demo',
        ),
      );
      expect(body.active).toBe(true);
    }
    // Once the old key is removed, its tokens stop verifying.
    t.tenant.signingKeys = t.tenant.signingKeys.filter((key) => key.kid === 'k2');
    const body = json(
      await t.server.introspect(
        postForm('/tenant/demo/introspect', { token: old }, basic(rs.client_id, rs.client_secret ?? '')),
        'demo',
      ),
    );
    expect(body.active).toBe(false);
  });

  it('accepts a PKCS#8 PEM private key', async () => {
    const { privateKey } = await generateKeyPair('ES256', { extractable: true });
    const pem = await exportPKCS8(privateKey);
    const t = await createTestServer({
      tenant: { signingKeys: [{ kid: 'pem', alg: 'ES256', privateKey: pem }] },
    });
    const token = await clientCredentialsToken(t);
    expect(decodePayload(token).sub).toMatch(/^client:/);
    const { keys } = json(await t.server.jwks(postForm('/', ''), 'demo')) as {
      keys: { kid: string; d?: string }[];
    };
    expect(keys).toHaveLength(1);
    expect(keys[0]?.kid).toBe('pem');
    expect(keys[0]?.d).toBeUndefined();
  });

  it.each([
    ['a short HMAC secret', [{ kid: 'a', alg: 'HS256', secret: 'short' }]],
    [
      'two active keys',
      [
        { kid: 'a', alg: 'HS256', secret: 'x'.repeat(32), active: true },
        { kid: 'b', alg: 'HS256', secret: 'y'.repeat(32), active: true },
      ],
    ],
    ['no keys', []],
    [
      'a duplicate kid',
      [
        { kid: 'a', alg: 'HS256', secret: 'x'.repeat(32) },
        { kid: 'a', alg: 'HS256', secret: 'y'.repeat(32) },
      ],
    ],
    [
      'a public key where a private one is needed',
      [{ kid: 'a', alg: 'ES256', privateKey: { kty: 'EC', crv: 'P-256', x: 'AA', y: 'AA' } }],
    ],
  ])('refuses %s with ERR_INVALID_OPTIONS (a programming error, thrown)', async (_, signingKeys) => {
    const t = await createTestServer({ tenant: { signingKeys: signingKeys as never } });
    const error = await t.server.jwks(postForm('/', ''), 'demo').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OAuthCoreError);
    expect((error as OAuthCoreError).code).toBe('ERR_INVALID_OPTIONS');
  });
});

describe('options are validated at creation', () => {
  const base = { tenants: { get: () => undefined }, storage: createMemoryStorage() };
  it.each([
    ['a relative baseUrl', { baseUrl: '/auth' }],
    ['plain http off loopback', { baseUrl: 'http://auth.example' }],
    ['a query in baseUrl', { baseUrl: 'https://auth.example/?x=1' }],
    ['a zero TTL', { baseUrl: 'https://auth.example', accessTokenTtlSeconds: 0 }],
    ['a fractional TTL', { baseUrl: 'https://auth.example', authorizationCodeTtlSeconds: 1.5 }],
  ])('refuses %s', (_, options) => {
    expect(() => createAuthorizationServer({ ...base, ...options } as never)).toThrow(
      expect.objectContaining({ name: 'OAuthCoreError', code: 'ERR_INVALID_OPTIONS' }),
    );
  });

  it('accepts http on loopback for development', () => {
    expect(() => createAuthorizationServer({ ...base, baseUrl: 'http://127.0.0.1:8787' })).not.toThrow();
  });
});

describe('the key cache tells key sets apart by their contents', () => {
  it('a secret given as bytes and a string secret that spells those bytes encoded are two keys', async () => {
    const { createKeyCache } = await import('../src/keys.js');
    const bytes = crypto.getRandomValues(new Uint8Array(32));
    const cache = createKeyCache();
    for (const spelling of [
      Buffer.from(bytes).toString('base64'),
      Buffer.from(bytes).toString('base64url'),
    ]) {
      const fromBytes = await cache.get([{ kid: 'k1', alg: 'HS256', secret: bytes }]);
      const fromString = await cache.get([{ kid: 'k1', alg: 'HS256', secret: spelling }]);
      expect(fromString).not.toBe(fromBytes);
    }
  });
});
