import { createHmac } from 'node:crypto';
import { exportSPKI, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import type { SigningAlgorithm, SigningKeyConfig } from '../src/index.js';
import { generateSigningKey } from '../src/index.js';
import { verifyJwt } from '../src/jwt-verification.js';
import { createKeyCache, type TenantKeySet } from '../src/keys.js';
import { signAccessToken, verifyAccessTokenJwt } from '../src/tokens.js';

const ISSUER = 'https://auth.example/tenant/demo';
const NOW_SECONDS = 1_780_000_000;
const NOW_MS = NOW_SECONDS * 1000;
const ALGORITHMS: SigningAlgorithm[] = ['HS256', 'HS384', 'HS512', 'RS256', 'ES256'];
const INVALID = { ok: false, description: 'the access token is invalid' };
const FOREIGN = { ok: false, description: 'the access token was not signed by this issuer' };
const MALFORMED = { ok: false, description: 'the access token is malformed' };
const EXPIRED = { ok: false, description: 'the access token has expired' };

const good = {
  iss: ISSUER,
  sub: 'client:svc',
  aud: `${ISSUER}/mcp`,
  client_id: 'svc',
  jti: 'j1',
  iat: NOW_SECONDS,
  exp: NOW_SECONDS + 900,
};

async function keySet(alg: SigningAlgorithm): Promise<TenantKeySet> {
  return createKeyCache().get([await generateSigningKey(alg, 'k1')]);
}

/** A token the tenant key really signed, with whatever header and claims the case needs. */
function forge(keys: TenantKeySet, claims: object, header: Record<string, unknown> = {}): Promise<string> {
  return new SignJWT({ ...claims })
    .setProtectedHeader({ alg: keys.active.alg, kid: 'k1', typ: 'at+jwt', ...header })
    .sign(keys.active.signingKey);
}

const encode = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');

/** An HS256 JWS over any header, signed with any secret: what a hand-written verifier might let through. */
function hmacToken(secret: Uint8Array | string, header: object, claims: object = good): string {
  const signingInput = `${encode(header)}.${encode(claims)}`;
  return `${signingInput}.${createHmac('sha256', secret).update(signingInput).digest('base64url')}`;
}

describe('access tokens are accepted by jose alone: the RFC 9068 claims and typ', () => {
  const cases: [string, object, Record<string, unknown>, object][] = [
    ['a valid token', good, {}, { ok: true }],
    ['the media-type spelling of typ (RFC 9068 §2.1)', good, { typ: 'application/AT+JWT' }, { ok: true }],
    ['nbf equal to now', { ...good, nbf: NOW_SECONDS }, {}, { ok: true }],
    ['exp equal to now', { ...good, exp: NOW_SECONDS }, {}, EXPIRED],
    ['exp an hour ago', { ...good, exp: NOW_SECONDS - 3600 }, {}, EXPIRED],
    ['another issuer', { ...good, iss: 'https://evil.example' }, {}, INVALID],
    ['no iat', { ...good, iat: undefined }, {}, INVALID],
    ['a string exp', { ...good, exp: String(NOW_SECONDS + 900) }, {}, INVALID],
    ['a string iat', { ...good, iat: 'yesterday' }, {}, INVALID],
    ['nbf in the future', { ...good, nbf: NOW_SECONDS + 60 }, {}, INVALID],
    ['typ JWT (an id token, RFC 8725 §3.11)', good, { typ: 'JWT' }, INVALID],
    ['no typ', good, { typ: undefined }, INVALID],
    ['a numeric client_id', { ...good, client_id: 7 }, {}, MALFORMED],
    ['an act without sub', { ...good, act: { client_id: 'x' } }, {}, MALFORMED],
  ];

  it.each(ALGORITHMS)(
    '%s: each case gets the answer RFC 9068 §4 and the bearer challenge expect',
    async (alg) => {
      const keys = await keySet(alg);
      for (const [name, claims, header, expected] of cases) {
        const answer = await verifyAccessTokenJwt(keys, await forge(keys, claims, header), ISSUER, NOW_MS);
        expect(answer, name).toMatchObject(expected);
      }
    },
  );
});

describe('a validly signed token jose must refuse is refused (RFC 7515, RFC 8725)', () => {
  it('an unknown crit header (RFC 7515 §4.1.11)', async () => {
    const config = (await generateSigningKey('HS256', 'k1')) as SigningKeyConfig & { secret: Uint8Array };
    const keys = await createKeyCache().get([config]);
    const token = hmacToken(config.secret, {
      alg: 'HS256',
      kid: 'k1',
      typ: 'at+jwt',
      crit: ['urn:x'],
      'urn:x': 1,
    });
    expect(await verifyAccessTokenJwt(keys, token, ISSUER, NOW_MS)).toEqual(INVALID);
    // The control: the same construction without crit is accepted, so the refusal above is crit's.
    const control = hmacToken(config.secret, { alg: 'HS256', kid: 'k1', typ: 'at+jwt', 'urn:x': 1 });
    expect((await verifyAccessTokenJwt(keys, control, ISSUER, NOW_MS)).ok).toBe(true);
  });

  it('an unencoded payload, b64: false in crit (RFC 7797: never for a JWT)', async () => {
    const config = (await generateSigningKey('HS256', 'k1')) as SigningKeyConfig & { secret: Uint8Array };
    const keys = await createKeyCache().get([config]);
    const header = { alg: 'HS256', kid: 'k1', typ: 'at+jwt', b64: false, crit: ['b64'] };
    expect(await verifyAccessTokenJwt(keys, hmacToken(config.secret, header), ISSUER, NOW_MS)).toEqual(
      INVALID,
    );
    // Signed the RFC 7797 way, over the raw payload, it is refused all the same.
    const raw = JSON.stringify(good).replaceAll('.', '_');
    const signingInput = `${encode(header)}.${raw}`;
    const unencoded = `${signingInput}.${createHmac('sha256', config.secret).update(signingInput).digest('base64url')}`;
    expect((await verifyAccessTokenJwt(keys, unencoded, ISSUER, NOW_MS)).ok).toBe(false);
    // Outside crit, b64 is a header jose does not act on (RFC 7797 §6): the payload is still base64url and
    // signed as such, so the token is the ordinary JWT it looks like.
    const ignored = hmacToken(config.secret, { alg: 'HS256', kid: 'k1', typ: 'at+jwt', b64: false });
    expect((await verifyAccessTokenJwt(keys, ignored, ISSUER, NOW_MS)).ok).toBe(true);
  });

  it('alg none, and an empty signature under the key alg', async () => {
    const keys = await keySet('ES256');
    const unsecured = `${encode({ alg: 'none', kid: 'k1', typ: 'at+jwt' })}.${encode(good)}.`;
    expect(await verifyAccessTokenJwt(keys, unsecured, ISSUER, NOW_MS)).toEqual(FOREIGN);
    const [header, payload] = (await forge(keys, good)).split('.');
    expect(await verifyAccessTokenJwt(keys, `${header}.${payload}.`, ISSUER, NOW_MS)).toEqual(INVALID);
  });

  it.each(['RS256', 'ES256'] as SigningAlgorithm[])(
    '%s: an HS256 token keyed with the public key (algorithm confusion, RFC 8725 §2.1)',
    async (alg) => {
      const keys = await keySet(alg);
      const pem = await exportSPKI(keys.active.verificationKey);
      for (const secret of [pem, JSON.stringify(keys.active.publicJwk)]) {
        const token = hmacToken(secret, { alg: 'HS256', kid: 'k1', typ: 'at+jwt' });
        expect(await verifyAccessTokenJwt(keys, token, ISSUER, NOW_MS)).toEqual(FOREIGN);
        // And through the one path directly, as if the kid lookup had been skipped.
        const direct = await verifyJwt(token, keys.active.verificationKey, {
          algorithms: [alg],
          nowMs: NOW_MS,
        });
        expect(direct).toEqual({ ok: false, code: 'ERR_JOSE_ALG_NOT_ALLOWED' });
        const withBytes = verifyJwt(token, new TextEncoder().encode(secret), {
          algorithms: [alg],
          nowMs: NOW_MS,
        });
        expect(await withBytes.catch(() => ({ ok: false }))).toMatchObject({ ok: false });
      }
    },
  );

  it('a header alg other than the key alg, even when another key could check it', async () => {
    const keys = await createKeyCache().get([
      await generateSigningKey('ES256', 'k1'),
      await generateSigningKey('RS256', 'k2'),
    ]);
    const signedByK2 = await new SignJWT(good)
      .setProtectedHeader({ alg: 'RS256', kid: 'k1', typ: 'at+jwt' })
      .sign((keys.byKid.get('k2') as { signingKey: CryptoKey }).signingKey);
    expect(await verifyAccessTokenJwt(keys, signedByK2, ISSUER, NOW_MS)).toEqual(FOREIGN);
  });

  it('a token of another key under the same kid', async () => {
    const keys = await keySet('ES256');
    const other = await keySet('ES256');
    expect(await verifyAccessTokenJwt(keys, await forge(other, good), ISSUER, NOW_MS)).toEqual(INVALID);
  });

  it.each(ALGORITHMS)('%s: a changed header, payload or signature', async (alg) => {
    const keys = await keySet(alg);
    const [header, payload, signature] = (await forge(keys, good)).split('.') as [string, string, string];
    const flipped = `${signature.slice(0, -2)}${signature.endsWith('AA') ? 'BA' : 'AA'}`;
    const tampered = [
      `${header}.${encode({ ...good, sub: 'client:admin' })}.${signature}`,
      `${header}.${payload}.${flipped}`,
      `${header}.${payload}.${signature}x`,
      `${header}.${payload.slice(1)}.${signature}`,
      `${header}.${payload}!.${signature}`,
      // U+0165 is 0x65 ('e') in latin1: bytes are read as UTF-8, so it does not pass for the real header.
      `\u0165${header.slice(1)}.${payload}.${signature}`,
      `${header}.\u0165${payload.slice(1)}.${signature}`,
    ];
    for (const token of tampered) {
      expect((await verifyAccessTokenJwt(keys, token, ISSUER, NOW_MS)).ok, token).toBe(false);
    }
  });
});

describe('verifyJwt always names the algorithms', () => {
  it('refuses to run with none (misuse, thrown)', async () => {
    const keys = await keySet('ES256');
    const { token } = await signAccessToken(keys, {
      issuer: ISSUER,
      subject: 's',
      audience: ['a'],
      clientId: 'c',
      scope: '',
      nowSeconds: NOW_SECONDS,
      expiresAtSeconds: NOW_SECONDS + 60,
    });
    await expect(
      verifyJwt(token, keys.active.verificationKey, { algorithms: [], nowMs: NOW_MS }),
    ).rejects.toThrow(TypeError);
    expect(
      (await verifyJwt(token, keys.active.verificationKey, { algorithms: ['ES256'], nowMs: NOW_MS })).ok,
    ).toBe(true);
  });
});

describe('verified access tokens are remembered by their exact bytes, never past what jose says afresh', () => {
  it.each(['ES256', 'HS256'] as SigningAlgorithm[])(
    '%s: a remembered token answers as a fresh jwtVerify at every time and for every issuer',
    async (alg) => {
      const config = [await generateSigningKey(alg, 'k1')];
      const keys = await createKeyCache().get(config);
      const token = await forge(keys, { ...good, nbf: NOW_SECONDS + 60 });
      expect((await verifyAccessTokenJwt(keys, token, ISSUER, NOW_MS + 120_000)).ok).toBe(true);
      for (const [nowMs, issuer] of [
        [NOW_MS + 899_999, ISSUER],
        [NOW_MS + 900_000, ISSUER],
        [NOW_MS, ISSUER],
        [NOW_MS + 120_000, 'https://auth.example/tenant/other'],
      ] as const) {
        // Another import of the same key is another key set, whose cache is empty: jose answers afresh.
        const afresh = await verifyAccessTokenJwt(await createKeyCache().get(config), token, issuer, nowMs);
        expect(await verifyAccessTokenJwt(keys, token, issuer, nowMs), `${nowMs} ${issuer}`).toEqual(afresh);
      }
    },
  );

  it('a token verified under a key set is refused once the key is gone from the tenant (a new key set)', async () => {
    const before = await keySet('ES256');
    const token = await forge(before, good);
    expect((await verifyAccessTokenJwt(before, token, ISSUER, NOW_MS)).ok).toBe(true);
    expect(await verifyAccessTokenJwt(await keySet('ES256'), token, ISSUER, NOW_MS)).toEqual(INVALID);
  });
});
