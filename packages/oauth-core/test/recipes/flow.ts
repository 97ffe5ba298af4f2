import { expect } from 'vitest';
import { singleUserToken } from '../../../../test-support/single-user-token.js';
import type { AuthorizationServer } from '../../src/index.js';
import { createAuthorizationServer, createMemoryStorage, generateSigningKey } from '../../src/index.js';

/** A single-user server (no login step) whose issuer base is `baseUrl`, as each recipe mounts it. */
export async function recipeServer(baseUrl: string): Promise<AuthorizationServer> {
  const tenant = { signingKeys: [await generateSigningKey('ES256', 'k1')], singleUserId: 'owner' };
  return createAuthorizationServer({
    baseUrl,
    singleUserMode: true,
    tenants: { get: (slug) => (slug === 'demo' ? tenant : undefined) },
    storage: createMemoryStorage(),
  });
}

/**
 * What a client and a person do against a mounted server, over real HTTP: discovery → registration →
 * authorization (PKCE) → consent → token → introspection; plus a CORS preflight. Fails on any wrong answer.
 */
export async function runFlow(origin: string, basePath = ''): Promise<void> {
  const {
    metadata: as,
    clientId,
    accessToken,
  } = await singleUserToken(`${origin}/.well-known/oauth-authorization-server${basePath}/tenant/demo`);
  const introspection = await fetch(as['introspection_endpoint']!, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token: accessToken, client_id: clientId }),
  });
  // A public client may introspect the tokens issued to it.
  expect(introspection.status).toBe(200);
  expect(await introspection.json()).toMatchObject({ active: true, client_id: clientId });
  const preflight = await fetch(as['token_endpoint']!, {
    method: 'OPTIONS',
    headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' },
  });
  expect(preflight.status).toBe(204);
}
