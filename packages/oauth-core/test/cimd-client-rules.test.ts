import type { HandlerRequest } from '@keyhold/core';
import { createManualClock, createMemoryRateLimiter } from '@keyhold/core';
import type { CryptoKey } from 'jose';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createCimdResolver } from '../src/cimd/resolver.js';
import type { ClientMetadataDocument } from '../src/cimd/types.js';
import { CLIENT_ASSERTION_TYPE_JWT_BEARER } from '../src/client-assertion.js';
import type { RegistrationPolicy } from '../src/index.js';
import { defaultRegistrationPolicy } from '../src/index.js';
import type { ClientJwk } from '../src/storage.js';
import type { TestServer, TestServerOptions } from './helpers.js';
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
} from './helpers.js';

// The rules a metadata-document client (and a private_key_jwt client's jwks_uri) follows on the server: the
// registration decision, fetch budgets a stranger cannot spend for others, negative caching, the tenant's fetch
// allowlist for key sets, and failures that tell nothing of what a fetched server answered. The documents and
// key sets are served by msw through the real resolvers; requests carry the caller's address (`ip`).

const HOST = 'https://app.example';
const REDIRECT = `${HOST}/callback`;

const network = setupServer();
const seen: string[] = [];
network.events.on('request:start', ({ request }) => {
  seen.push(request.url);
});
beforeAll(() => network.listen({ onUnhandledRequest: 'error' }));
afterEach(() => {
  network.resetHandlers();
  seen.length = 0;
});
afterAll(() => network.close());

interface Key {
  readonly kid: string;
  readonly privateKey: CryptoKey;
  readonly jwk: ClientJwk;
}

async function key(kid: string): Promise<Key> {
  const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
  const exported = await exportJWK(publicKey);
  return { kid, privateKey, jwk: { ...exported, kty: String(exported.kty), kid, alg: 'ES256', use: 'sig' } };
}

let jti = 0;
async function assertion(t: TestServer, clientId: string, signer: Key): Promise<string> {
  const now = Math.floor(t.clock.now() / 1000);
  jti += 1;
  // aud: the issuer identifier alone, which every revision of RFC 7523 accepts.
  return new SignJWT({ iss: clientId, sub: clientId, aud: ISSUER, iat: now, exp: now + 60, jti: `r-${jti}` })
    .setProtectedHeader({ alg: 'ES256', kid: signer.kid })
    .sign(signer.privateKey);
}

const from = (ip: string, request: HandlerRequest): HandlerRequest => ({ ...request, ip });

function serveDocument(clientId: string, extra: Partial<ClientMetadataDocument>, maxAge = 300): void {
  network.use(
    http.get(clientId, () =>
      HttpResponse.json(
        { client_id: clientId, client_name: 'Metadata App', redirect_uris: [REDIRECT], ...extra },
        { headers: { 'cache-control': `max-age=${maxAge}` } },
      ),
    ),
  );
}

async function server(overrides: TestServerOptions & { fetchLimit?: number } = {}): Promise<TestServer> {
  const clock = createManualClock(Date.parse('2026-03-01T12:00:00Z'));
  const cimdResolver = createCimdResolver({
    // msw patches the global fetch in beforeAll, so it is looked up per call.
    fetch: (url, init) => fetch(url, init),
    clock,
    ...(overrides.fetchLimit === undefined
      ? {}
      : {
          fetchRateLimit: {
            limiter: createMemoryRateLimiter(),
            limit: overrides.fetchLimit,
            windowSeconds: 60,
          },
        }),
  });
  const t = await createTestServer({
    cimdResolver,
    ...overrides,
    tenant: { allowedCimdDomains: ['app.example'], ...overrides.tenant },
    options: { clock, ...overrides.options },
  });
  return { ...t, clock };
}

function authorizeRequest(clientId: string, challenge: string): HandlerRequest {
  return get(
    '/tenant/demo/authorize',
    {
      client_id: clientId,
      response_type: 'code',
      redirect_uri: REDIRECT,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state: 'st',
      scope: 'mcp:tools',
    },
    USER,
  );
}

describe('metadata-document clients pass the registration decision: without a host policy, no machine grants', () => {
  const CLIENT_ID = `${HOST}/machine.json`;

  async function machineDocument(policy?: RegistrationPolicy): Promise<{ t: TestServer; signer: Key }> {
    const signer = await key('m1');
    serveDocument(CLIENT_ID, {
      grant_types: ['client_credentials'],
      token_endpoint_auth_method: 'private_key_jwt',
      jwks: { keys: [signer.jwk] },
      scope: 'mcp:tools',
    });
    const t = await server(policy === undefined ? {} : { options: { registrationPolicy: policy } });
    return { t, signer };
  }

  const machineToken = async (t: TestServer, signer: Key) =>
    t.server.token(
      postForm('/tenant/demo/token', {
        grant_type: 'client_credentials',
        scope: 'mcp:tools',
        client_assertion_type: CLIENT_ASSERTION_TYPE_JWT_BEARER,
        client_assertion: await assertion(t, CLIENT_ID, signer),
      }),
      'demo',
    );

  it('a document listing client_credentials gets no client_credentials token (unauthorized_client)', async () => {
    const { t, signer } = await machineDocument();
    const result = await machineToken(t, signer);
    expect(result.status).toBe(400);
    expect(json(result)).toMatchObject({ error: 'unauthorized_client' });
  });

  it('wrapping defaultRegistrationPolicy keeps that rule for documents too', async () => {
    const { t, signer } = await machineDocument((input) => defaultRegistrationPolicy(input));
    expect(json(await machineToken(t, signer))).toMatchObject({ error: 'unauthorized_client' });
  });

  it('a host policy that allows it (seeing metadataDocumentUrl and the request) gets the token', async () => {
    const inputs: unknown[] = [];
    const { t, signer } = await machineDocument((input) => {
      inputs.push({ url: input.metadataDocumentUrl, gated: input.gatedGrantTypes, path: input.request.path });
      return input.metadataDocumentUrl === CLIENT_ID ? { ok: true } : defaultRegistrationPolicy(input);
    });
    const result = await machineToken(t, signer);
    expect(result.status, result.body).toBe(200);
    expect(json(result)).toMatchObject({ token_type: 'Bearer', scope: 'mcp:tools' });
    expect(inputs).toEqual([{ url: CLIENT_ID, gated: ['client_credentials'], path: '/tenant/demo/token' }]);
  });

  it('a host policy refusal makes the document client invalid_client with its description', async () => {
    const { t, signer } = await machineDocument(() => ({ ok: false, description: 'not on this tenant' }));
    const result = await machineToken(t, signer);
    expect(result.status).toBe(401);
    expect(json(result)).toMatchObject({ error: 'invalid_client', error_description: 'not on this tenant' });
  });

  it('a document listing authorization_code and client_credentials still signs users in', async () => {
    const clientId = `${HOST}/mixed.json`;
    serveDocument(clientId, { grant_types: ['authorization_code', 'refresh_token', 'client_credentials'] });
    const t = await server();
    const result = await t.server.authorize(authorizeRequest(clientId, pkce().challenge), 'demo');
    expect(location(result).pathname).toBe('/tenant/demo/consent');
  });
});

describe('fetch budgets: a stranger asking for documents that do not exist locks out no one else', () => {
  const STRANGER = '203.0.113.66';
  const USER_IP = '192.0.2.10';
  const KNOWN_IP = '198.51.100.20';
  const KNOWN = `${HOST}/known.json`;
  const NEVER_FETCHED = `${HOST}/never-fetched.json`;
  const JWKS_URI = `${HOST}/jwks.json`;

  it('another user signs in with a never-fetched document, and a known client refreshes with rotated keys', async () => {
    const k1 = await key('k1');
    const k2 = await key('k2');
    let published = [k1.jwk];
    serveDocument(
      KNOWN,
      {
        grant_types: ['authorization_code', 'refresh_token'],
        token_endpoint_auth_method: 'private_key_jwt',
        jwks_uri: JWKS_URI,
      },
      60,
    );
    serveDocument(NEVER_FETCHED, {});
    network.use(
      http.get(JWKS_URI, () => HttpResponse.json({ keys: published })),
      http.get(`${HOST}/missing/:n`, () => new HttpResponse(null, { status: 404 })),
    );
    const t = await server({ fetchLimit: 5 });

    // The known client signs a user in and gets a refresh token (one document and one key-set fetch).
    const { challenge, verifier } = pkce();
    let target = location(
      await t.server.authorize(from(KNOWN_IP, authorizeRequest(KNOWN, challenge)), 'demo'),
    );
    target = location(await decideConsent(t.server, target.searchParams.get('req') ?? ''));
    const issued = await t.server.token(
      from(
        KNOWN_IP,
        postForm('/tenant/demo/token', {
          grant_type: 'authorization_code',
          code: target.searchParams.get('code') ?? '',
          code_verifier: verifier,
          redirect_uri: REDIRECT,
          client_assertion_type: CLIENT_ASSERTION_TYPE_JWT_BEARER,
          client_assertion: await assertion(t, KNOWN, k1),
        }),
      ),
      'demo',
    );
    expect(issued.status, issued.body).toBe(200);

    // A minute on, the document is stale and the client has rotated its key. Within one budget window:
    t.clock.advance(61_000);
    published = [k2.jwk];
    // a stranger asks for documents that do not exist, until its own budget is spent;
    const answers: number[] = [];
    for (let n = 0; n < 12; n += 1) {
      const result = await t.server.authorize(
        from(STRANGER, authorizeRequest(`${HOST}/missing/${n}`, 'x')),
        'demo',
      );
      answers.push(result.status);
    }
    expect(answers.slice(0, 5)).toEqual([400, 400, 400, 400, 400]);
    expect(answers.slice(5)).toEqual([429, 429, 429, 429, 429, 429, 429]);
    expect(
      (await t.server.authorize(from(STRANGER, authorizeRequest(NEVER_FETCHED, pkce().challenge)), 'demo'))
        .status,
    ).toBe(429);

    // another user, at another address, signs in with a document never fetched before;
    const signIn = await t.server.authorize(
      from(USER_IP, authorizeRequest(NEVER_FETCHED, pkce().challenge)),
      'demo',
    );
    expect(location(signIn).pathname).toBe('/tenant/demo/consent');

    // and the known client refreshes: its document is revalidated and its key set refetched for the new kid.
    const refreshed = await t.server.token(
      from(
        KNOWN_IP,
        postForm('/tenant/demo/token', {
          grant_type: 'refresh_token',
          refresh_token: String(json(issued).refresh_token),
          client_assertion_type: CLIENT_ASSERTION_TYPE_JWT_BEARER,
          client_assertion: await assertion(t, KNOWN, k2),
        }),
      ),
      'demo',
    );
    expect(refreshed.status, refreshed.body).toBe(200);
    expect(seen.filter((url) => url === KNOWN)).toHaveLength(2);
    expect(seen.filter((url) => url === JWKS_URI)).toHaveLength(2);
  });
});

describe('negative caching: a document that does not exist is not fetched again for a while', () => {
  it('a second /authorize for a 404 document a minute later makes no request', async () => {
    const missing = `${HOST}/missing.json`;
    network.use(http.get(missing, () => new HttpResponse(null, { status: 404 })));
    const t = await server();
    expect((await t.server.authorize(authorizeRequest(missing, pkce().challenge), 'demo')).status).toBe(400);
    t.clock.advance(60_000);
    expect((await t.server.authorize(authorizeRequest(missing, pkce().challenge), 'demo')).status).toBe(400);
    expect(seen).toEqual([missing]);
  });
});

describe("a jwks_uri is fetched only from the tenant's fetch allowlist; failures tell nothing the peer answered", () => {
  const KEYS = 'https://keys.example/jwks.json';

  async function dynamicKeyClient(t: TestServer): Promise<string> {
    const result = await t.server.register(
      {
        method: 'POST',
        path: '/tenant/demo/register',
        query: '',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          redirect_uris: [REDIRECT],
          token_endpoint_auth_method: 'private_key_jwt',
          jwks_uri: KEYS,
        }),
      },
      'demo',
    );
    expect(result.status, result.body).toBe(201);
    return String(json(result).client_id);
  }

  const refreshWith = async (t: TestServer, clientId: string) =>
    t.server.token(
      postForm('/tenant/demo/token', {
        grant_type: 'refresh_token',
        refresh_token: 'unknown',
        client_assertion_type: CLIENT_ASSERTION_TYPE_JWT_BEARER,
        client_assertion: await assertion(t, clientId, await key('d1')),
      }),
      'demo',
    );

  it('with no allowed domain, a dynamic client’s jwks_uri is never fetched: invalid_client, no request', async () => {
    network.use(http.get(KEYS, () => HttpResponse.json({ keys: [] })));
    const t = await server({ tenant: { allowedCimdDomains: ['keys.example'] } });
    const clientId = await dynamicKeyClient(t);
    t.tenant.allowedCimdDomains = [];
    const result = await refreshWith(t, clientId);
    expect(result.status).toBe(401);
    expect(json(result)).toMatchObject({ error: 'invalid_client' });
    expect(seen).toEqual([]);
  });

  it('an error page behind a jwks_uri: one fixed description, no status, body or content type', async () => {
    network.use(
      http.get(
        KEYS,
        () =>
          new HttpResponse('<h1>router admin 10.0.0.1</h1>', {
            status: 404,
            headers: { 'content-type': 'text/html' },
          }),
      ),
    );
    const t = await server({ tenant: { allowedCimdDomains: ['keys.example'] } });
    const clientId = await dynamicKeyClient(t);
    const result = await refreshWith(t, clientId);
    expect(seen).toEqual([KEYS]);
    expect(json(result)).toEqual({
      error: 'invalid_client',
      error_description: "the client's jwks_uri did not provide a usable JWK Set",
    });
  });
});
