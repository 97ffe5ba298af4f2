import { readFileSync } from 'node:fs';
import type { Server } from 'node:https';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createManualClock } from '@keyhold/core';
import type { CryptoKey } from 'jose';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DnsLookup } from '../../src/cimd/safe-fetch.js';
import { createSafeFetch } from '../../src/cimd/safe-fetch.js';
import { CLIENT_ASSERTION_TYPE_JWT_BEARER } from '../../src/client-assertion.js';
import type { TestServer } from '../helpers.js';
import {
  createTestServer,
  decideConsent,
  get,
  ISSUER,
  json,
  location,
  pkce,
  postForm,
  USER,
} from '../helpers.js';

// ChatGPT's metadata-document shape: several methods, RS256, a jwks_uri. The document and the key set are served
// by a real TLS server on loopback (certificate for cimd.test) and fetched through the real SSRF-safe fetch; the
// injected lookup plays DNS and only 127.0.0.1 is exempted from the private-address refusal.
const ca = readFileSync(new URL('../cimd/fixtures/cimd-test-cert.pem', import.meta.url), 'utf8');
const tlsKey = readFileSync(new URL('../cimd/fixtures/cimd-test-key.pem', import.meta.url), 'utf8');
const REDIRECT_URI = 'https://chatgpt.example/connector_platform_oauth_redirect';
const toLoopback: DnsLookup = async () => [{ address: '127.0.0.1', family: 4 }];

let server: Server;
let origin = '';
let signingKey: CryptoKey;
let publicJwk: Record<string, unknown>;
const fetched: string[] = [];

const clientId = (): string => `${origin}/oauth/client.json`;

beforeAll(async () => {
  const pair = await generateKeyPair('RS256', { extractable: true });
  signingKey = pair.privateKey;
  publicJwk = { ...(await exportJWK(pair.publicKey)), kid: 'chatgpt-1', alg: 'RS256', use: 'sig' };
  server = createServer({ key: tlsKey, cert: ca }, (request, response) => {
    fetched.push(request.url ?? '');
    if (request.url === '/oauth/client.json') {
      response.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          client_id: clientId(),
          client_name: 'ChatGPT',
          redirect_uris: [REDIRECT_URI],
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
          token_endpoint_auth_methods_supported: ['none', 'private_key_jwt'],
          token_endpoint_auth_signing_alg: 'RS256',
          jwks_uri: `${origin}/.well-known/jwks.json`,
          scope: 'mcp:tools',
        }),
      );
    } else if (request.url === '/.well-known/jwks.json') {
      response
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ keys: [publicJwk] }));
    } else {
      response.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `https://cimd.test:${(server.address() as AddressInfo).port}`;
});
afterAll(
  () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
);

async function setup(): Promise<TestServer> {
  const clock = createManualClock(Date.parse('2026-03-01T12:00:00Z'));
  // The server's own `cimd` option, its network replaced by the safe fetch with DNS played by the test.
  const safeFetch = createSafeFetch({ lookup: toLoopback, allowedAddresses: ['127.0.0.1'], ca });
  const t = await createTestServer({
    tenant: { allowedCimdDomains: ['cimd.test'] },
    options: { clock, cimd: { fetch: (url, init) => safeFetch(url, init) } },
  });
  return { ...t, clock };
}

let jti = 0;
async function clientAssertion(t: TestServer): Promise<string> {
  const now = Math.floor(t.clock.now() / 1000);
  jti += 1;
  return new SignJWT({
    iss: clientId(),
    sub: clientId(),
    aud: ISSUER,
    iat: now,
    exp: now + 60,
    jti: `a-${jti}`,
  })
    .setProtectedHeader({ alg: 'RS256', kid: 'chatgpt-1' })
    .sign(signingKey);
}

async function authorizationCode(t: TestServer): Promise<{ code: string; verifier: string }> {
  const { verifier, challenge } = pkce();
  const authorize = await t.server.authorize(
    get(
      '/tenant/demo/authorize',
      {
        client_id: clientId(),
        response_type: 'code',
        redirect_uri: REDIRECT_URI,
        code_challenge: challenge,
        code_challenge_method: 'S256',
        state: 'st',
        scope: 'mcp:tools',
        resource: `${ISSUER}/mcp`,
      },
      USER,
    ),
    'demo',
  );
  let decided = location(authorize);
  // The first authorization shows the consent screen; later ones reuse the remembered consent.
  if (decided.pathname === '/tenant/demo/consent') {
    decided = location(await decideConsent(t.server, decided.searchParams.get('req') ?? ''));
  }
  expect(decided.origin + decided.pathname).toBe(REDIRECT_URI);
  return { code: decided.searchParams.get('code') ?? '', verifier };
}

describe('end to end: a ChatGPT-shaped metadata-document client authenticates with private_key_jwt (RFC 7523)', () => {
  it('negotiates private_key_jwt, then runs authorization_code and refresh_token with assertions', async () => {
    const t = await setup();
    fetched.length = 0;
    const { code, verifier } = await authorizationCode(t);
    const codeForm = {
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      redirect_uri: REDIRECT_URI,
    };

    // The document offers private_key_jwt and publishes keys: the server picks it over none, so client_id alone
    // no longer authenticates this client.
    const publicAttempt = await t.server.token(
      postForm('/tenant/demo/token', { ...codeForm, client_id: clientId() }),
      'demo',
    );
    expect(publicAttempt.status).toBe(401);
    expect(json(publicAttempt)).toMatchObject({ error: 'invalid_client' });

    const { code: code2, verifier: verifier2 } = await authorizationCode(t);
    const tokens = await t.server.token(
      postForm('/tenant/demo/token', {
        grant_type: 'authorization_code',
        code: code2,
        code_verifier: verifier2,
        redirect_uri: REDIRECT_URI,
        client_assertion_type: CLIENT_ASSERTION_TYPE_JWT_BEARER,
        client_assertion: await clientAssertion(t),
      }),
      'demo',
    );
    expect(tokens.status, tokens.body).toBe(200);
    const issued = json(tokens);
    expect(issued).toMatchObject({ token_type: 'Bearer', scope: 'mcp:tools' });
    expect(typeof issued.refresh_token).toBe('string');

    t.clock.advance(120_000);
    const refreshAssertion = await clientAssertion(t);
    const refreshForm = {
      grant_type: 'refresh_token',
      refresh_token: String(issued.refresh_token),
      client_id: clientId(),
      client_assertion_type: CLIENT_ASSERTION_TYPE_JWT_BEARER,
      client_assertion: refreshAssertion,
    };
    const refreshed = await t.server.token(postForm('/tenant/demo/token', refreshForm), 'demo');
    expect(refreshed.status, refreshed.body).toBe(200);
    expect(json(refreshed).refresh_token).not.toBe(issued.refresh_token);

    // The same assertion again (with the new refresh token) is a replay.
    const replay = await t.server.token(
      postForm('/tenant/demo/token', {
        ...refreshForm,
        refresh_token: String(json(refreshed).refresh_token),
      }),
      'demo',
    );
    expect(replay.status).toBe(401);
    expect(String(json(replay).error_description)).toMatch(/already used/);

    // One fetch of the document and one of the key set: both cached, both through the same safe fetch.
    expect(fetched.filter((url) => url === '/oauth/client.json')).toHaveLength(1);
    expect(fetched.filter((url) => url === '/.well-known/jwks.json')).toHaveLength(1);
  });

  it('the access token carries the metadata-document client_id and the MCP resource', async () => {
    const t = await setup();
    const { code, verifier } = await authorizationCode(t);
    const tokens = json(
      await t.server.token(
        postForm('/tenant/demo/token', {
          grant_type: 'authorization_code',
          code,
          code_verifier: verifier,
          redirect_uri: REDIRECT_URI,
          client_assertion_type: CLIENT_ASSERTION_TYPE_JWT_BEARER,
          client_assertion: await clientAssertion(t),
        }),
        'demo',
      ),
    );
    const check = await t.server.verifyAccessToken('demo', `Bearer ${String(tokens.access_token)}`);
    expect(check.ok).toBe(true);
    if (check.ok) expect(check.claims).toMatchObject({ client_id: clientId(), aud: `${ISSUER}/mcp` });
  });
});
