import { createHash } from 'node:crypto';
import type { HandlerRequest } from '@keyhold/core';
import { createManualClock } from '@keyhold/core';
import { formEncode, randomToken, sha256Base64url } from '@keyhold/internal';
import { SignJWT } from 'jose';
import { bench, describe } from 'vitest';
import type { AuthorizationServerWithEndpoints } from '../src/authorization-server.js';
import { createAuthorizationServerWithEndpoints } from '../src/authorization-server.js';
import type { OAuthStorage, SigningAlgorithm, SigningKeyConfig } from '../src/index.js';
import { createMemoryStorage, generateSigningKey } from '../src/index.js';

// The handler's cost is compared with the floor it cannot go below: one jose signature of an access token
// with the same claims and an already-imported key, measured in the same run.

const BASE_URL = 'https://auth.example';
const ISSUER = `${BASE_URL}/tenant/demo`;
const REDIRECT_URI = 'https://app.example/callback';

async function importForRawSigning(config: SigningKeyConfig): Promise<CryptoKey> {
  if ('secret' in config) {
    const bytes = typeof config.secret === 'string' ? new TextEncoder().encode(config.secret) : config.secret;
    return crypto.subtle.importKey(
      'raw',
      new Uint8Array(bytes),
      { name: 'HMAC', hash: `SHA-${config.alg.slice(2)}` },
      false,
      ['sign'],
    );
  }
  const { importJWK } = await import('jose');
  return (await importJWK(config.privateKey as never, config.alg)) as CryptoKey;
}

interface Fixture {
  server: AuthorizationServerWithEndpoints;
  storage: OAuthStorage;
  clientId: string;
  clientSecret: string;
  rawKey: CryptoKey;
  alg: SigningAlgorithm;
  refreshToken: string;
  codes: { code: string; verifier: string }[];
}

async function fixture(alg: SigningAlgorithm): Promise<Fixture> {
  const key = await generateSigningKey(alg, 'k1');
  const tenant = { signingKeys: [key] };
  const storage = createMemoryStorage();
  const clock = createManualClock(Date.parse('2026-03-01T12:00:00Z'));
  const server = createAuthorizationServerWithEndpoints({
    baseUrl: BASE_URL,
    tenants: { get: (slug) => (slug === 'demo' ? tenant : undefined) },
    storage,
    clock,
  });
  const clientId = 'bench-public';
  await storage.clients.create('demo', {
    clientId,
    redirectUris: [REDIRECT_URI],
    grantTypes: ['authorization_code', 'refresh_token'],
    responseTypes: ['code'],
    tokenEndpointAuthMethod: 'none',
    createdAt: clock.now(),
  });
  const clientSecret = randomToken();
  await storage.clients.create('demo', {
    clientId: 'bench-service',
    redirectUris: [],
    grantTypes: ['client_credentials'],
    responseTypes: [],
    tokenEndpointAuthMethod: 'client_secret_basic',
    clientSecretHash: sha256Base64url(clientSecret),
    scope: 'reports:read',
    createdAt: clock.now(),
  });
  const refreshToken = randomToken();
  await storage.refreshTokens.save('demo', {
    tokenHash: sha256Base64url(refreshToken),
    familyId: 'f1',
    clientId,
    clientType: 'registered',
    userId: 'user-1',
    scope: 'mcp openid',
    resources: [],
    createdAt: clock.now(),
    expiresAt: clock.now() + 86_400_000,
  });
  const f: Fixture = {
    server,
    storage,
    clientId,
    clientSecret,
    rawKey: await importForRawSigning(key),
    alg,
    refreshToken,
    codes: [],
  };
  await refillCodes(f, clock.now());
  return f;
}

// Enough codes for a whole run are made up front, so no refill lands inside a measured iteration.
async function refillCodes(f: Fixture, now: number, count = 60_000): Promise<void> {
  for (let i = 0; i < count; i++) {
    const code = randomToken();
    const verifier = randomToken(32);
    await f.storage.authorizationCodes.save('demo', {
      codeHash: sha256Base64url(code),
      clientId: f.clientId,
      clientType: 'registered',
      userId: 'user-1',
      redirectUri: REDIRECT_URI,
      codeChallenge: createHash('sha256').update(verifier).digest('base64url'),
      scope: 'mcp',
      resources: [],
      authTime: now,
      expiresAt: now + 3_600_000,
    });
    f.codes.push({ code, verifier });
  }
}

function form(body: Record<string, string>, headers: Record<string, string> = {}): HandlerRequest {
  return {
    method: 'POST',
    path: '/tenant/demo/token',
    query: '',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: formEncode(body),
  };
}

async function rawSign(f: Fixture): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({
    iss: ISSUER,
    sub: 'user-1',
    aud: `${ISSUER}/mcp`,
    client_id: f.clientId,
    scope: 'mcp openid',
    jti: crypto.randomUUID(),
    iat: now,
    exp: now + 900,
  })
    .setProtectedHeader({ alg: f.alg, kid: 'k1', typ: 'at+jwt' })
    .sign(f.rawKey);
}

async function refreshOnce(f: Fixture): Promise<void> {
  const result = await f.server.token(
    form({ grant_type: 'refresh_token', refresh_token: f.refreshToken, client_id: f.clientId }),
    'demo',
  );
  if (result.status !== 200) throw new Error(`refresh failed: ${result.body}`);
  f.refreshToken = (JSON.parse(result.body ?? '{}') as { refresh_token: string }).refresh_token;
}

async function redeemOnce(f: Fixture): Promise<void> {
  let next = f.codes.pop();
  if (!next) {
    await refillCodes(f, Date.parse('2026-03-01T12:00:00Z'), 1000);
    next = f.codes.pop();
  }
  const { code, verifier } = next as { code: string; verifier: string };
  const result = await f.server.token(
    form({
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      redirect_uri: REDIRECT_URI,
      client_id: f.clientId,
    }),
    'demo',
  );
  if (result.status !== 200) throw new Error(`redeem failed: ${result.body}`);
}

async function clientCredentialsOnce(f: Fixture): Promise<void> {
  const basic = `Basic ${Buffer.from(`bench-service:${f.clientSecret}`).toString('base64')}`;
  const result = await f.server.token(
    form({ grant_type: 'client_credentials' }, { authorization: basic }),
    'demo',
  );
  if (result.status !== 200) throw new Error(`client_credentials failed: ${result.body}`);
}

// Long runs: the machine is shared, so short runs are dominated by other processes' noise.
const options = { time: 3000, warmupTime: 500 };

for (const alg of ['ES256', 'HS256'] as const) {
  const f = await fixture(alg);
  describe(`${alg}: grant handlers against the raw signing floor`, () => {
    bench(`raw jose sign (${alg})`, () => rawSign(f).then(() => undefined), options);
    bench(`refresh_token grant handler (${alg})`, () => refreshOnce(f), options);
    bench(`authorization_code grant handler (${alg})`, () => redeemOnce(f), options);
    bench(`client_credentials grant handler (${alg})`, () => clientCredentialsOnce(f), options);
  });
}
