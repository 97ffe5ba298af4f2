import { readFileSync } from 'node:fs';
import { jwtVerify } from 'jose';
import { afterEach, describe, expect, it, vi } from 'vitest';
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
const idTokenInput = {
  issuer: ISSUER,
  subject: 'user-1',
  clientId: 'app',
  nonce: 'n',
  authTimeSeconds: NOW_SECONDS,
  nowSeconds: NOW_SECONDS,
  expiresAtSeconds: NOW_SECONDS + 900,
  userClaims: { name: 'Zoë', email: 'zoe@example.com' },
};

/** The same key imported twice: signing through node:crypto (the default on Node) and through jose. */
async function both(alg: SigningAlgorithm): Promise<{ native: TenantKeySet; jose: TenantKeySet }> {
  const config: SigningKeyConfig[] = [await generateSigningKey(alg, 'k1')];
  return {
    native: await createKeyCache().get(config),
    jose: await createKeyCache({ nativeSigning: false }).get(config),
  };
}

function segments(token: string): [string, string, string] {
  return token.split('.') as [string, string, string];
}

describe('the node:crypto signer is chosen on Node, through process.getBuiltinModule, and only there', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.resetModules();
  });

  it.each(ALGORITHMS)('%s: Node signs natively by default, and through jose when asked', async (alg) => {
    const { native, jose } = await both(alg);
    expect(native.active.nativeSigner).toBeDefined();
    expect(jose.active.nativeSigner).toBeUndefined();
  });

  it('a runtime without process.getBuiltinModule (workerd, browsers) signs through jose', async () => {
    vi.stubGlobal('process', { ...process, getBuiltinModule: undefined });
    vi.resetModules();
    const keys = await import('../src/keys.js');
    const set = await keys.createKeyCache().get([await keys.generateSigningKey('ES256', 'k1')]);
    expect(set.active.nativeSigner).toBeUndefined();
    const { signAccessToken: sign, verifyAccessTokenJwt: verify } = await import('../src/tokens.js');
    const { token, claims } = await sign(set, input);
    expect(await verify(set, token, ISSUER, NOW_MS)).toEqual({ ok: true, claims });
  });

  it('a runtime whose node:crypto signs wrongly keeps jose (the signer must verify through jose first)', async () => {
    const real = process.getBuiltinModule;
    // The control: the same stubbing with the real module keeps the native signer.
    vi.stubGlobal('process', { ...process, getBuiltinModule: (id: string) => real(id) });
    vi.resetModules();
    const control = await import('../src/keys.js');
    const kept = await control.createKeyCache().get([await control.generateSigningKey('ES256', 'k1')]);
    expect(kept.active.nativeSigner).toBeDefined();

    vi.stubGlobal('process', {
      ...process,
      getBuiltinModule: (id: string) => {
        if (id !== 'node:crypto') return real(id);
        const module = real('node:crypto') as typeof import('node:crypto');
        // A partial implementation that signs other bytes than asked.
        return {
          ...module,
          sign: (hash: string, _data: Uint8Array, key: never) => module.sign(hash, new Uint8Array(1), key),
        };
      },
    });
    vi.resetModules();
    const keys = await import('../src/keys.js');
    const set = await keys.createKeyCache().get([await keys.generateSigningKey('ES256', 'k1')]);
    expect(set.active.nativeSigner).toBeUndefined();
  });

  it.each(['native-signer.ts', 'keys.ts', 'tokens.ts', 'jwt-verification.ts', 'client-assertion.ts'])(
    '%s has no static import of a node: module',
    (file) => {
      const source = readFileSync(new URL(`../src/${file}`, import.meta.url), 'utf8');
      expect(source).not.toMatch(/^import (?!type )[^;]*from 'node:/m);
      expect(source).not.toMatch(/(?<!typeof )import\(['"`]node:/);
    },
  );
});

describe('node:crypto signing is interchangeable with jose SignJWT (RFC 7515 compact serialisation)', () => {
  it.each(['HS256', 'HS384', 'HS512', 'RS256'] as SigningAlgorithm[])(
    '%s (deterministic): access and id tokens are the very same bytes as jose signs',
    async (alg) => {
      const { native, jose } = await both(alg);
      expect((await signAccessToken(native, input)).token).toBe((await signAccessToken(jose, input)).token);
      expect(await signIdToken(native, idTokenInput)).toBe(await signIdToken(jose, idTokenInput));
    },
  );

  it('ES256 (randomised): the same header and payload bytes as jose, a raw r || s signature jose verifies', async () => {
    const { native, jose } = await both('ES256');
    for (const [mine, theirs] of [
      [(await signAccessToken(native, input)).token, (await signAccessToken(jose, input)).token],
      [await signIdToken(native, idTokenInput), await signIdToken(jose, idTokenInput)],
    ] as const) {
      const [header, payload, signature] = segments(mine);
      expect(`${header}.${payload}`).toBe(segments(theirs).slice(0, 2).join('.'));
      // IEEE P1363, as JWS requires (RFC 7518 §3.4): 64 bytes, not DER.
      expect(Buffer.from(signature, 'base64url')).toHaveLength(64);
      const verified = await jwtVerify(mine, jose.active.verificationKey, {
        algorithms: ['ES256'],
        currentDate: new Date(NOW_MS),
      });
      expect(verified.protectedHeader.kid).toBe('k1');
    }
  });

  it.each(ALGORITHMS)(
    '%s: a natively signed token passes verifyAccessTokenJwt with its claims',
    async (alg) => {
      const { native, jose } = await both(alg);
      const signed = await signAccessToken(native, input);
      const { payload, protectedHeader } = await jwtVerify(signed.token, jose.active.verificationKey, {
        issuer: ISSUER,
        typ: 'at+jwt',
        algorithms: [alg],
        currentDate: new Date(NOW_MS),
      });
      expect(protectedHeader).toEqual({ alg, kid: 'k1', typ: 'at+jwt' });
      expect(payload).toEqual(signed.claims);
      expect(await verifyAccessTokenJwt(jose, signed.token, ISSUER, NOW_MS)).toEqual({
        ok: true,
        claims: signed.claims,
      });
    },
  );
});
