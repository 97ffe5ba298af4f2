import { createHmac } from 'node:crypto';
import { jwtVerify, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import type { SigningAlgorithm, SigningKeyConfig } from '../src/index.js';
import { generateSigningKey } from '../src/index.js';
import { createKeyCache, type TenantKeySet } from '../src/keys.js';
import { type AccessTokenInput, signAccessToken, signIdToken, verifyAccessTokenJwt } from '../src/tokens.js';

const ISSUER = 'https://auth.example/tenant/demo';
const NOW_SECONDS = 1_780_000_000;
const NOW_MS = NOW_SECONDS * 1000;
const ALGORITHMS: SigningAlgorithm[] = ['HS256', 'HS384', 'HS512', 'RS256', 'ES256'];

const input: AccessTokenInput = {
  issuer: ISSUER,
  subject: 'client:svc',
  audience: [`${ISSUER}/mcp`],
  clientId: 'svc',
  scope: 'mcp:tools',
  nowSeconds: NOW_SECONDS,
  expiresAtSeconds: NOW_SECONDS + 900,
  jti: 'fixed-jti',
  act: { sub: 'client:a', client_id: 'a' },
};

/** The same key imported twice: through node:crypto (the default on Node) and on the WebCrypto path. */
async function both(alg: SigningAlgorithm): Promise<{ native: TenantKeySet; web: TenantKeySet }> {
  const config: SigningKeyConfig[] = [await generateSigningKey(alg, 'k1')];
  return {
    native: await createKeyCache().get(config),
    web: await createKeyCache({ nativeCrypto: false }).get(config),
  };
}

function segment(token: string, index: number): Buffer {
  return Buffer.from(token.split('.')[index] ?? '', 'base64url');
}

describe('node:crypto signing is interchangeable with jose (RFC 7515 compact serialisation)', () => {
  it.each(ALGORITHMS)('%s: node:crypto is chosen on Node, and WebCrypto when asked', async (alg) => {
    const { native, web } = await both(alg);
    expect(native.active.native).toBeDefined();
    expect(web.active.native).toBeUndefined();
  });

  it.each(ALGORITHMS)('%s: a token signed through node:crypto verifies with jose, and back', async (alg) => {
    const { native, web } = await both(alg);
    const fast = await signAccessToken(native, input);
    const { payload, protectedHeader } = await jwtVerify(fast.token, web.active.verificationKey, {
      issuer: ISSUER,
      typ: 'at+jwt',
      algorithms: [alg],
      currentDate: new Date(NOW_MS),
    });
    expect(protectedHeader).toEqual({ alg, kid: 'k1', typ: 'at+jwt' });
    expect(payload).toEqual(fast.claims);
    expect(await verifyAccessTokenJwt(web, fast.token, ISSUER, NOW_MS)).toEqual({
      ok: true,
      claims: fast.claims,
    });

    const slow = await signAccessToken(web, input);
    expect(await verifyAccessTokenJwt(native, slow.token, ISSUER, NOW_MS)).toEqual({
      ok: true,
      claims: slow.claims,
    });
  });

  it.each(['HS256', 'HS384', 'HS512', 'RS256'] as SigningAlgorithm[])(
    '%s (deterministic): both paths produce the very same bytes',
    async (alg) => {
      const { native, web } = await both(alg);
      expect((await signAccessToken(native, input)).token).toBe((await signAccessToken(web, input)).token);
      const idToken = {
        issuer: ISSUER,
        subject: 'user-1',
        clientId: 'app',
        nonce: 'n',
        authTimeSeconds: NOW_SECONDS,
        nowSeconds: NOW_SECONDS,
        expiresAtSeconds: NOW_SECONDS + 900,
      };
      expect(await signIdToken(native, idToken)).toBe(await signIdToken(web, idToken));
    },
  );

  it('ES256 signatures are raw r || s (IEEE P1363, 64 bytes), not DER', async () => {
    const { native, web } = await both('ES256');
    const { token } = await signAccessToken(native, input);
    expect(segment(token, 2)).toHaveLength(64);
    const idToken = await signIdToken(native, {
      issuer: ISSUER,
      subject: 'user-1',
      clientId: 'app',
      authTimeSeconds: NOW_SECONDS,
      nowSeconds: NOW_SECONDS,
      expiresAtSeconds: NOW_SECONDS + 900,
    });
    const verified = await jwtVerify(idToken, web.active.verificationKey, { currentDate: new Date(NOW_MS) });
    expect(verified.protectedHeader.typ).toBe('JWT');
    expect(verified.payload.aud).toBe('app');
  });
});

describe('node:crypto verification gives the answers jose gives (RFC 9068 §4)', () => {
  async function forge(
    keys: TenantKeySet,
    claims: Record<string, unknown>,
    header: Record<string, unknown> = {},
  ): Promise<string> {
    return new SignJWT(claims)
      .setProtectedHeader({ alg: keys.active.alg, kid: 'k1', typ: 'at+jwt', ...header })
      .sign(keys.active.signingKey);
  }

  const good = {
    iss: ISSUER,
    sub: 'client:svc',
    aud: `${ISSUER}/mcp`,
    client_id: 'svc',
    jti: 'j1',
    iat: NOW_SECONDS,
    exp: NOW_SECONDS + 900,
  };
  const { iat: _iat, ...withoutIat } = good;
  const cases: [string, Record<string, unknown>, Record<string, unknown>?][] = [
    ['valid', good],
    ['expired', { ...good, exp: NOW_SECONDS }],
    ['expired long ago', { ...good, exp: NOW_SECONDS - 3600 }],
    ['another issuer', { ...good, iss: 'https://evil.example' }],
    ['missing iat', withoutIat],
    ['a string exp', { ...good, exp: String(NOW_SECONDS + 900) }],
    ['a string iat', { ...good, iat: 'yesterday' }],
    ['not yet valid', { ...good, nbf: NOW_SECONDS + 60 }],
    ['valid from now', { ...good, nbf: NOW_SECONDS }],
    ['a plain JWT typ', good, { typ: 'JWT' }],
    ['the media-type typ', good, { typ: 'application/AT+JWT' }],
    ['a numeric client_id', { ...good, client_id: 7 }],
    ['a bad act', { ...good, act: { client_id: 'x' } }],
  ];

  it.each(ALGORITHMS)('%s: every case answers alike on both paths', async (alg) => {
    const { native, web } = await both(alg);
    for (const [name, claims, header] of cases) {
      const token = await forge(web, claims, header);
      const expected = await verifyAccessTokenJwt(web, token, ISSUER, NOW_MS);
      expect(await verifyAccessTokenJwt(native, token, ISSUER, NOW_MS), name).toEqual(expected);
    }
    expect((await verifyAccessTokenJwt(native, await forge(web, good), ISSUER, NOW_MS)).ok).toBe(true);
  });

  it.each(ALGORITHMS)('%s: a changed payload, signature or header is refused on both paths', async (alg) => {
    const { native, web } = await both(alg);
    const [header, payload, signature] = (await forge(web, good)).split('.') as [string, string, string];
    const otherPayload = Buffer.from(JSON.stringify({ ...good, sub: 'client:admin' })).toString('base64url');
    const flipped = `${signature.slice(0, -2)}${signature.endsWith('AA') ? 'BA' : 'AA'}`;
    const tampered = [
      `${header}.${otherPayload}.${signature}`,
      `${header}.${payload}.${flipped}`,
      `${header}.${payload}.${signature}x`,
      `${header}.${payload}.`,
      `${header}.${payload.slice(1)}.${signature}`,
      `${header}.${payload}!.${signature}`,
      // U+0165 is 0x65 ('e') in latin1: bytes must be read as UTF-8, or it would pass for the real header.
      `\u0165${header.slice(1)}.${payload}.${signature}`,
      `${header}.\u0165${payload.slice(1)}.${signature}`,
    ];
    for (const token of tampered) {
      const expected = await verifyAccessTokenJwt(web, token, ISSUER, NOW_MS);
      expect(expected.ok, token).toBe(false);
      expect(await verifyAccessTokenJwt(native, token, ISSUER, NOW_MS), token).toEqual(expected);
    }
  });

  it('a crit header jose does not understand is refused on both paths (RFC 7515 §4.1.11)', async () => {
    const config = (await generateSigningKey('HS256', 'k1')) as SigningKeyConfig & { secret: Uint8Array };
    const native = await createKeyCache().get([config]);
    const web = await createKeyCache({ nativeCrypto: false }).get([config]);
    const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const signingInput = `${encode({ alg: 'HS256', kid: 'k1', typ: 'at+jwt', crit: ['x'], x: 1 })}.${encode(good)}`;
    const signature = createHmac('sha256', config.secret).update(signingInput).digest('base64url');
    const token = `${signingInput}.${signature}`;
    const expected = await verifyAccessTokenJwt(web, token, ISSUER, NOW_MS);
    expect(expected.ok).toBe(false);
    expect(await verifyAccessTokenJwt(native, token, ISSUER, NOW_MS)).toEqual(expected);
  });

  it('a token of another key with the same kid is refused', async () => {
    const { native } = await both('ES256');
    const { web: other } = await both('ES256');
    const token = await forge(other, good);
    expect(await verifyAccessTokenJwt(native, token, ISSUER, NOW_MS)).toEqual({
      ok: false,
      description: 'the access token is invalid',
    });
  });
});

describe('verified access tokens are remembered by their exact bytes, never past what a fresh check says', () => {
  it.each(['ES256', 'HS256'] as SigningAlgorithm[])(
    '%s: a remembered token still expires on time and still belongs to one issuer',
    async (alg) => {
      const { native, web } = await both(alg);
      for (const keys of [native, web]) {
        const { token, claims } = await signAccessToken(keys, input);
        expect(await verifyAccessTokenJwt(keys, token, ISSUER, NOW_MS)).toEqual({ ok: true, claims });
        expect(await verifyAccessTokenJwt(keys, token, ISSUER, NOW_MS + 899_999)).toEqual({
          ok: true,
          claims,
        });
        expect(await verifyAccessTokenJwt(keys, token, ISSUER, NOW_MS + 900_000)).toEqual({
          ok: false,
          description: 'the access token has expired',
        });
        expect(await verifyAccessTokenJwt(keys, token, 'https://auth.example/tenant/other', NOW_MS)).toEqual({
          ok: false,
          description: 'the access token is invalid',
        });
      }
    },
  );

  it('a token verified under a key set is refused once the key is gone from the tenant (a new key set)', async () => {
    const old = await generateSigningKey('ES256', 'k1');
    const before = await createKeyCache().get([old]);
    const { token } = await signAccessToken(before, input);
    expect((await verifyAccessTokenJwt(before, token, ISSUER, NOW_MS)).ok).toBe(true);
    const after = await createKeyCache().get([await generateSigningKey('ES256', 'k1')]);
    expect(await verifyAccessTokenJwt(after, token, ISSUER, NOW_MS)).toEqual({
      ok: false,
      description: 'the access token is invalid',
    });
  });
});
