import { createHash, randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import type { AuthorizationServer } from '../../src/index.js';
import { createAuthorizationServer, createMemoryStorage, generateSigningKey } from '../../src/index.js';

export const REDIRECT_URI = 'https://app.example/callback';

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
  const metadata = await fetch(`${origin}/.well-known/oauth-authorization-server${basePath}/tenant/demo`);
  expect(metadata.status).toBe(200);
  const as = (await metadata.json()) as Record<string, string>;
  const registered = await fetch(as['registration_endpoint']!, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none' }),
  });
  expect(registered.status).toBe(201);
  const { client_id: clientId } = (await registered.json()) as { client_id: string };
  const verifier = randomBytes(32).toString('base64url');
  const authorize = new URL(as['authorization_endpoint']!);
  authorize.search = new URLSearchParams({
    client_id: clientId,
    response_type: 'code',
    redirect_uri: REDIRECT_URI,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    scope: 'mcp:tools',
    state: 's',
  }).toString();
  const toConsent = await fetch(authorize, { redirect: 'manual' });
  expect(toConsent.status).toBe(302);
  const consentUrl = new URL(toConsent.headers.get('location')!, authorize);
  const page = await fetch(consentUrl);
  expect(page.status).toBe(200);
  const cookie = (page.headers.get('set-cookie') ?? '').split(';', 1)[0]!;
  const csrf = /name="csrf_token" value="([^"]+)"/.exec(await page.text())![1]!;
  const decided = await fetch(consentUrl.href.split('?')[0]!, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
    body: new URLSearchParams({
      req: consentUrl.searchParams.get('req')!,
      decision: 'approve',
      csrf_token: csrf,
    }),
  });
  expect(decided.status).toBe(302);
  const code = new URL(decided.headers.get('location')!).searchParams.get('code')!;
  const token = await fetch(as['token_endpoint']!, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      redirect_uri: REDIRECT_URI,
      client_id: clientId,
    }),
  });
  expect(token.status).toBe(200);
  const { access_token: accessToken } = (await token.json()) as { access_token: string };
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
