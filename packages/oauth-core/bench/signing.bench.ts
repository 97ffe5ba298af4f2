import { bench, describe } from 'vitest';
import { createKeyCache, generateSigningKey } from '../src/keys.js';
import { type AccessTokenInput, signAccessToken, verifyAccessTokenJwt } from '../src/tokens.js';

// Issue 28: signing may keep its node:crypto one-shot path only if it matters next to jose's SignJWT. The same
// ES256 key imported twice, once with the native signer (the default on Node) and once signing through jose.
const config = [await generateSigningKey('ES256', 'k1')];
const native = await createKeyCache().get(config);
const web = await createKeyCache({ nativeSigning: false }).get(config);
if (!native.active.nativeSigner || web.active.nativeSigner) throw new Error('expected one key set per path');

const ISSUER = 'https://auth.example/tenant/demo';
const nowSeconds = Math.floor(Date.now() / 1000);
const input: AccessTokenInput = {
  issuer: ISSUER,
  subject: 'client:svc',
  audience: [`${ISSUER}/mcp`],
  clientId: 'svc',
  scope: 'mcp:tools',
  nowSeconds,
  expiresAtSeconds: nowSeconds + 900,
};

describe('ES256 access token signing', () => {
  bench('jose SignJWT (WebCrypto)', async () => {
    await signAccessToken(web, input);
  });
  bench('node:crypto one-shot sign', async () => {
    await signAccessToken(native, input);
  });
});

// For scale: what every fresh token costs to verify, now through jose alone (a fresh key set per call would
// measure the import; instead every token is new, so the verified-token cache never answers).
const tokens = await Promise.all(Array.from({ length: 6_000 }, () => signAccessToken(native, input)));
let next = 0;
describe('ES256 access token verification (jose jwtVerify, cache misses)', () => {
  bench('verifyAccessTokenJwt', async () => {
    const { token } = tokens[next++ % tokens.length] as { token: string };
    await verifyAccessTokenJwt(web, `${token}`, ISSUER, Date.now());
  });
});
