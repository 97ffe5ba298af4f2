import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HandlerRequest } from '@keyhold/core';
import { createManualClock, formEncode, randomToken, sha256Base64url } from '@keyhold/core';
import type { OAuthStorage } from '@keyhold/oauth-core';
import { createAuthorizationServer, createMemoryStorage, generateSigningKey } from '@keyhold/oauth-core';
import { bench, describe } from 'vitest';
import { openSqliteDatabase } from '../src/database.js';
import { createSqliteOAuthStorage } from '../src/oauth-store.js';

// The refresh_token grant through the real token handler (client lookup, consume, rotate, sign ES256),
// with the memory store and SQLite in one run. Each iteration refreshes CHAINS independent token families
// at once, as concurrent clients would. (@keyhold/store-postgres's benchmark adds PostgreSQL.)

const CHAINS = 16;
const CLIENT_ID = 'bench-client';

interface Chains {
  refreshAll(): Promise<void>;
}

async function chainsOver(storage: OAuthStorage): Promise<Chains> {
  const clock = createManualClock(Date.parse('2026-03-01T12:00:00Z'));
  const tenant = { signingKeys: [await generateSigningKey('ES256', 'k1')] };
  const server = createAuthorizationServer({
    baseUrl: 'https://auth.example',
    tenants: { get: (slug) => (slug === 'demo' ? tenant : undefined) },
    storage,
    clock,
  });
  await storage.clients.create('demo', {
    clientId: CLIENT_ID,
    redirectUris: ['https://app.example/callback'],
    grantTypes: ['authorization_code', 'refresh_token'],
    responseTypes: ['code'],
    tokenEndpointAuthMethod: 'none',
    createdAt: clock.now(),
  });
  const tokens: string[] = [];
  for (let i = 0; i < CHAINS; i++) {
    const token = randomToken();
    await storage.refreshTokens.save('demo', {
      tokenHash: sha256Base64url(token),
      familyId: `family-${i}`,
      clientId: CLIENT_ID,
      clientType: 'registered',
      userId: `user-${i}`,
      scope: 'mcp openid',
      resources: [],
      createdAt: clock.now(),
      expiresAt: clock.now() + 30 * 86_400_000,
    });
    tokens.push(token);
  }
  const refresh = async (i: number): Promise<void> => {
    const request: HandlerRequest = {
      method: 'POST',
      path: '/tenant/demo/token',
      query: '',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: formEncode({
        grant_type: 'refresh_token',
        refresh_token: tokens[i] as string,
        client_id: CLIENT_ID,
      }),
    };
    const result = await server.token(request, 'demo');
    if (result.status !== 200) throw new Error(`refresh failed: ${result.body}`);
    tokens[i] = (JSON.parse(result.body ?? '{}') as { refresh_token: string }).refresh_token;
  };
  return { refreshAll: async () => void (await Promise.all(tokens.map((_, i) => refresh(i)))) };
}

const memory = await chainsOver(createMemoryStorage());
const file = await chainsOver(
  createSqliteOAuthStorage(
    openSqliteDatabase(join(mkdtempSync(join(tmpdir(), 'keyhold-bench-')), 'bench.db')),
  ),
);
const inMemory = await chainsOver(createSqliteOAuthStorage(openSqliteDatabase(':memory:')));

// Long runs: the machine is shared, so short runs are dominated by other processes' noise.
const options = { time: 4000, warmupTime: 500 };

describe(`refresh_token grant, ${CHAINS} concurrent chains per iteration (ES256)`, () => {
  bench('memory store', () => memory.refreshAll(), options);
  bench('SQLite store (WAL file, synchronous=NORMAL)', () => file.refreshAll(), options);
  bench('SQLite store (:memory:)', () => inMemory.refreshAll(), options);
});
