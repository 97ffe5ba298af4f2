// The steps every HTTP-level flow test repeats against a single-user tenant: discovery → dynamic
// registration of a public client → authorization (PKCE S256) → consent (cookie + CSRF) → token.
import { createHash, randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { publicCodeExchangeForm } from './code-exchange-form.js';
import { codeRequestUrl } from './code-request-url.js';

export const REDIRECT_URI = 'https://app.example/callback';

/** What the flow learned: the authorization server's metadata, the registered client and its token. */
export interface SingleUserToken {
  readonly metadata: Record<string, string>;
  readonly clientId: string;
  readonly accessToken: string;
}

/**
 * Runs the flow against `metadataUrl` (the tenant's RFC 8414 document) over real HTTP, failing on any
 * wrong answer.
 */
export async function singleUserToken(metadataUrl: string): Promise<SingleUserToken> {
  const discovered = await fetch(metadataUrl);
  expect(discovered.status).toBe(200);
  const metadata = (await discovered.json()) as Record<string, string>;
  const registered = await fetch(metadata['registration_endpoint']!, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none' }),
  });
  expect(registered.status).toBe(201);
  const { client_id: clientId } = (await registered.json()) as { client_id: string };
  const verifier = randomBytes(32).toString('base64url');
  const authorize = codeRequestUrl(metadata['authorization_endpoint']!, clientId, REDIRECT_URI, {
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    scope: 'mcp:tools',
    state: 's',
  });
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
  const token = await fetch(metadata['token_endpoint']!, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(publicCodeExchangeForm(code, verifier, clientId, REDIRECT_URI)),
  });
  expect(token.status).toBe(200);
  const { access_token: accessToken } = (await token.json()) as { access_token: string };
  return { metadata, clientId, accessToken };
}
