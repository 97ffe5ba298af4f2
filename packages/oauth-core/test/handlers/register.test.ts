import type { HandlerRequest } from '@keyhold/core';
import { sha256Base64url } from '@keyhold/internal';
import { describe, expect, it } from 'vitest';
import { CLIENT_METADATA_LIMITS } from '../../src/client-metadata.js';
import { TOKEN_EXCHANGE_GRANT } from '../../src/grants/token-exchange.js';
import type { RegistrationDecision, RegistrationPolicyInput, TenantConfig } from '../../src/index.js';
import { defaultRegistrationPolicy } from '../../src/index.js';
import type { TestServer, TestServerOptions } from '../helpers.js';
import { BASE_URL, basic, createTestServer, json, postForm } from '../helpers.js';

function registration(body: unknown, headers: Record<string, string> = {}): HandlerRequest {
  return {
    method: 'POST',
    path: '/tenant/demo/register',
    query: '',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  };
}

async function register(body: unknown, contentType = 'application/json') {
  const t = await createTestServer();
  const result = await t.server.register(registration(body, { 'content-type': contentType }), 'demo');
  return { t, result, body: json(result) };
}

async function registerOn(t: TestServer, body: unknown, headers: Record<string, string> = {}) {
  const result = await t.server.register(registration(body, headers), 'demo');
  return { result, body: json(result) };
}

const IAT = 'iat-0123456789-abcdefghijklmnopqrstuvwxyz';
const IAT_CC_ONLY = 'iat-cc-only-0123456789-abcdefghijklmnop';

function withTokens(extra: Partial<TestServerOptions> = {}): Promise<TestServer> {
  const tenant: Partial<TenantConfig> = {
    initialAccessTokens: [
      { tokenHash: sha256Base64url(IAT), label: 'ops' },
      {
        tokenHash: sha256Base64url(IAT_CC_ONLY),
        label: 'ci',
        grantTypes: ['client_credentials'],
      },
    ],
  };
  return createTestServer({ ...extra, tenant: { ...tenant, ...extra.tenant } });
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const MACHINE = { grant_types: ['client_credentials'], scope: 'reports:read' };

describe('POST /register (RFC 7591)', () => {
  it('registers a confidential client: 201, a secret shown once, client_secret_expires_at 0, stored as a hash', async () => {
    const { t, result, body } = await register({
      redirect_uris: ['https://app.example/cb'],
      client_name: 'App',
    });
    expect(result.status).toBe(201);
    expect(result.headers['cache-control']).toBe('no-store');
    expect(body).toMatchObject({
      redirect_uris: ['https://app.example/cb'],
      client_name: 'App',
      token_endpoint_auth_method: 'client_secret_basic',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      client_secret_expires_at: 0,
    });
    const stored = await t.storage.clients.get('demo', String(body.client_id));
    expect(stored?.clientSecretHash).toBe(sha256Base64url(String(body.client_secret)));
    expect(JSON.stringify(stored)).not.toContain(String(body.client_secret));
  });

  it('registers a public client only with token_endpoint_auth_method none, and issues no secret', async () => {
    const { result, body } = await register({
      redirect_uris: ['http://127.0.0.1/cb'],
      token_endpoint_auth_method: 'none',
    });
    expect(result.status).toBe(201);
    expect(body.client_secret).toBeUndefined();
    expect(body.client_secret_expires_at).toBeUndefined();
  });

  it.each([
    ['a non-loopback http redirect', 'http://app.example/cb'],
    ['a fragment', 'https://app.example/cb#x'],
    ['a relative URI', '/cb'],
    ['a javascript: URI', 'javascript:alert(1)'],
    ['a private-use scheme without a dot', 'myapp:/cb'],
  ])('refuses %s with invalid_redirect_uri', async (_, uri) => {
    const { result, body } = await register({ redirect_uris: [uri] });
    expect(result.status).toBe(400);
    expect(body.error).toBe('invalid_redirect_uri');
  });

  it('accepts a reverse-domain private-use scheme (RFC 8252 §7.1)', async () => {
    const { result } = await register({
      redirect_uris: ['com.example.app:/cb'],
      token_endpoint_auth_method: 'none',
    });
    expect(result.status).toBe(201);
  });

  it('refuses missing redirect_uris for the code grant with invalid_redirect_uri', async () => {
    expect((await register({ client_name: 'x' })).body.error).toBe('invalid_redirect_uri');
  });

  it.each([
    [
      'an unknown auth method',
      { redirect_uris: ['https://a.example/cb'], token_endpoint_auth_method: 'private_key_jwt' },
    ],
    ['an unknown grant type', { redirect_uris: ['https://a.example/cb'], grant_types: ['password'] }],
    ['a wrong type', { redirect_uris: 'https://a.example/cb' }],
    [
      'a public client with client_credentials',
      { token_endpoint_auth_method: 'none', grant_types: ['client_credentials'] },
    ],
    [
      'client_secret_post with authorization_code',
      { redirect_uris: ['https://a.example/cb'], token_endpoint_auth_method: 'client_secret_post' },
    ],
    ['a malformed scope', { redirect_uris: ['https://a.example/cb'], scope: 'a "b"' }],
  ])('refuses %s with invalid_client_metadata', async (_, metadata) => {
    const { result, body } = await register(metadata);
    expect(result.status).toBe(400);
    expect(body.error).toBe('invalid_client_metadata');
  });

  it('refuses a body that is not JSON, or not declared as JSON', async () => {
    expect((await register('{not json')).body.error).toBe('invalid_client_metadata');
    expect((await register({ redirect_uris: ['https://a.example/cb'] }, 'text/plain')).body.error).toBe(
      'invalid_client_metadata',
    );
  });
});

describe('registration policy: anonymous registration keeps a user in the loop', () => {
  it.each([
    ['client_credentials', { grant_types: ['client_credentials'] }, 'client_credentials'],
    ['token exchange', { grant_types: [TOKEN_EXCHANGE_GRANT] }, TOKEN_EXCHANGE_GRANT],
    [
      'a code client that also asks for client_credentials',
      { redirect_uris: ['https://a.example/cb'], grant_types: ['authorization_code', 'client_credentials'] },
      'client_credentials',
    ],
  ])(
    'refuses %s without a host decision: 400 invalid_client_metadata naming what is not allowed',
    async (_, metadata, grant) => {
      const { t, result, body } = await register(metadata);
      expect(result.status).toBe(400);
      expect(body.error).toBe('invalid_client_metadata');
      expect(body.error_description).toBe(
        `${grant} needs a client provisioned by the host or an initial access token`,
      );
      expect(await t.storage.clients.list('demo')).toEqual([]);
    },
  );

  it('the issue scenario: no anonymous client_credentials client, so no machine token', async () => {
    const t = await createTestServer();
    const { result } = await registerOn(t, { grant_types: ['client_credentials'] });
    expect(result.status).toBe(400);
    const token = await t.server.token(
      postForm('/tenant/demo/token', { grant_type: 'client_credentials' }, basic('anyone', 'anything')),
      'demo',
    );
    expect(json(token).error).toBe('invalid_client');
  });

  it('registers authorization_code / refresh_token clients anonymously', async () => {
    const { result, body } = await register({ redirect_uris: ['https://a.example/cb'] });
    expect(result.status).toBe(201);
    expect(body.grant_types).toEqual(['authorization_code', 'refresh_token']);
  });
});

describe('registration policy: RFC 7591 §3 initial access tokens', () => {
  it('a valid initial access token lets a registration use client_credentials', async () => {
    const t = await withTokens();
    const { result, body } = await registerOn(t, MACHINE, bearer(IAT));
    expect(result.status).toBe(201);
    expect(body).toMatchObject({
      grant_types: ['client_credentials'],
      response_types: [],
      scope: 'reports:read',
    });
    const token = await t.server.token(
      postForm(
        '/tenant/demo/token',
        { grant_type: 'client_credentials' },
        basic(String(body.client_id), String(body.client_secret)),
      ),
      'demo',
    );
    expect(token.status).toBe(200);
  });

  it('a token limited to some grant types does not allow the others', async () => {
    const t = await withTokens();
    expect((await registerOn(t, MACHINE, bearer(IAT_CC_ONLY))).result.status).toBe(201);
    const { result, body } = await registerOn(
      t,
      { grant_types: [TOKEN_EXCHANGE_GRANT] },
      bearer(IAT_CC_ONLY),
    );
    expect(result.status).toBe(400);
    expect(body).toMatchObject({
      error: 'invalid_client_metadata',
      error_description: `the initial access token does not allow ${TOKEN_EXCHANGE_GRANT}`,
    });
  });

  it('a token carrying token exchange audiences gives them to the client it registers', async () => {
    const t = await withTokens({
      tenant: {
        initialAccessTokens: [
          {
            tokenHash: sha256Base64url(IAT),
            label: 'gateway',
            grantTypes: [TOKEN_EXCHANGE_GRANT],
            tokenExchangeAudiences: ['https://files.example'],
          },
        ],
      },
    });
    const { result, body } = await registerOn(t, { grant_types: [TOKEN_EXCHANGE_GRANT] }, bearer(IAT));
    expect(result.status).toBe(201);
    const stored = await t.storage.clients.get('demo', String(body.client_id));
    expect(stored?.tokenExchangeAudiences).toEqual(['https://files.example']);
  });

  it.each([
    ['an unknown token', `Bearer ${'x'.repeat(40)}`],
    ['a malformed header', 'Bearer two words'],
    ['another scheme', 'Basic YTpi'],
    ['an empty bearer', 'Bearer '],
  ])('%s answers 401 invalid_token with a Bearer challenge (RFC 6750 §3.1)', async (_, header) => {
    const t = await withTokens();
    const { result, body } = await registerOn(
      t,
      { redirect_uris: ['https://a.example/cb'] },
      { authorization: header },
    );
    expect(result.status).toBe(401);
    expect(body.error).toBe('invalid_token');
    expect(result.headers['www-authenticate']).toMatch(/^Bearer realm="demo", error="invalid_token"/);
    expect(await t.storage.clients.list('demo')).toEqual([]);
  });

  it('an expired token answers 401 invalid_token', async () => {
    const t = await createTestServer();
    t.tenant.initialAccessTokens = [
      { tokenHash: sha256Base64url(IAT), label: 'old', expiresAt: t.clock.now() + 1000 },
    ];
    expect((await registerOn(t, MACHINE, bearer(IAT))).result.status).toBe(201);
    t.clock.advance(1000);
    const { result, body } = await registerOn(t, MACHINE, bearer(IAT));
    expect(result.status).toBe(401);
    expect(body.error_description).toBe('the initial access token has expired');
  });

  it('a tenant configured with a token hash that is not a SHA-256 is a configuration error (thrown)', async () => {
    const t = await createTestServer({ tenant: { initialAccessTokens: [{ tokenHash: IAT, label: 'raw' }] } });
    await expect(t.server.register(registration(MACHINE, bearer(IAT)), 'demo')).rejects.toMatchObject({
      name: 'OAuthCoreError',
      code: 'ERR_INVALID_OPTIONS',
      message: expect.stringMatching(/tokenHash/),
    });
  });
});

describe('registration policy: the host hook', () => {
  it('sees the parsed metadata, the tenant, the request and the presented token; its refusal is the answer', async () => {
    const seen: RegistrationPolicyInput[] = [];
    const t = await withTokens({
      options: {
        registrationPolicy: (input) => {
          seen.push(input);
          return { ok: false, description: 'registration is closed on this tenant' };
        },
      },
    });
    const { result, body } = await registerOn(t, MACHINE, { ...bearer(IAT_CC_ONLY), 'x-team': 'blue' });
    expect(result.status).toBe(400);
    expect(body).toEqual({
      error: 'invalid_client_metadata',
      error_description: 'registration is closed on this tenant',
    });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({
      tenant: 'demo',
      metadata: {
        grantTypes: ['client_credentials'],
        responseTypes: [],
        redirectUris: [],
        tokenEndpointAuthMethod: 'client_secret_basic',
        scope: 'reports:read',
      },
      initialAccessToken: { label: 'ci', grantTypes: ['client_credentials'] },
      gatedGrantTypes: ['client_credentials'],
    });
    expect(seen[0]?.request.headers['x-team']).toBe('blue');
    expect(JSON.stringify(seen[0]?.initialAccessToken)).not.toContain(sha256Base64url(IAT_CC_ONLY));
  });

  it('may trim the metadata; the stored client is the trimmed one', async () => {
    const t = await createTestServer({
      options: {
        registrationPolicy: (input) => ({
          ok: true,
          metadata: { ...input.metadata, scope: 'mcp', grantTypes: ['authorization_code'] },
        }),
      },
    });
    const { result, body } = await registerOn(t, {
      redirect_uris: ['https://a.example/cb'],
      scope: 'mcp admin',
    });
    expect(result.status).toBe(201);
    expect(body).toMatchObject({ scope: 'mcp', grant_types: ['authorization_code'] });
    const stored = await t.storage.clients.get('demo', String(body.client_id));
    expect(stored).toMatchObject({ scope: 'mcp', grantTypes: ['authorization_code'] });
  });

  it('metadata the hook returns is checked like a request (no public client_credentials)', async () => {
    const t = await createTestServer({
      options: {
        registrationPolicy: (input) => ({
          ok: true,
          metadata: {
            ...input.metadata,
            tokenEndpointAuthMethod: 'none',
            grantTypes: ['client_credentials'],
          },
        }),
      },
    });
    const { result, body } = await registerOn(t, { grant_types: ['client_credentials'] });
    expect(result.status).toBe(400);
    expect(body.error).toBe('invalid_client_metadata');
  });

  it('is the host decision for machine grants: it may allow them, and may delegate to the default', async () => {
    const t = await createTestServer({
      options: {
        registrationPolicy: (input) =>
          input.request.headers['x-internal'] === 'yes' ? { ok: true } : defaultRegistrationPolicy(input),
      },
    });
    expect((await registerOn(t, MACHINE)).result.status).toBe(400);
    expect((await registerOn(t, MACHINE, { 'x-internal': 'yes' })).result.status).toBe(201);
  });

  it('an invalid initial access token never reaches the hook', async () => {
    let calls = 0;
    const t = await createTestServer({
      options: {
        registrationPolicy: () => {
          calls += 1;
          return { ok: true };
        },
      },
    });
    expect((await registerOn(t, MACHINE, bearer('nope'))).result.status).toBe(401);
    expect(calls).toBe(0);
  });

  it('only an explicit ok: true allows: any other answer (the old outcome: allow shape, say) is a refusal', async () => {
    for (const answer of [{ outcome: 'allow' }, { ok: 'yes' }]) {
      const t = await createTestServer({
        options: { registrationPolicy: () => answer as unknown as RegistrationDecision },
      });
      const { result, body } = await registerOn(t, { redirect_uris: ['https://a.example/cb'] });
      expect(result.status).toBe(400);
      expect(body).toEqual({
        error: 'invalid_client_metadata',
        error_description: 'the registration policy refused this client',
      });
    }
  });

  it('an anonymous registration reaches the hook without an initialAccessToken', async () => {
    const seen: RegistrationPolicyInput[] = [];
    const t = await createTestServer({
      options: {
        registrationPolicy: (input) => {
          seen.push(input);
          return { ok: true };
        },
      },
    });
    expect((await registerOn(t, { redirect_uris: ['https://a.example/cb'] })).result.status).toBe(201);
    expect(seen).toHaveLength(1);
    expect(seen[0]).not.toHaveProperty('initialAccessToken');
  });

  it('a registrationPolicy that is not a function is refused at creation', async () => {
    await expect(
      createTestServer({ options: { registrationPolicy: 'open' as never } }),
    ).rejects.toMatchObject({
      name: 'OAuthCoreError',
      code: 'ERR_INVALID_OPTIONS',
      message: expect.stringMatching(/registrationPolicy/),
    });
  });
});

describe('bounded storage: caps on what one registration stores', () => {
  const uris = (n: number) => Array.from({ length: n }, (_, i) => `https://a.example/cb/${i}`);

  it(`accepts ${CLIENT_METADATA_LIMITS.redirectUris} redirect URIs and refuses one more`, async () => {
    expect((await register({ redirect_uris: uris(CLIENT_METADATA_LIMITS.redirectUris) })).result.status).toBe(
      201,
    );
    const { result, body } = await register({ redirect_uris: uris(CLIENT_METADATA_LIMITS.redirectUris + 1) });
    expect(result.status).toBe(400);
    expect(body.error).toBe('invalid_client_metadata');
  });

  it(`refuses a body over ${CLIENT_METADATA_LIMITS.bodyBytes} bytes, even with unknown members only`, async () => {
    const { result, body } = await register({
      redirect_uris: ['https://a.example/cb'],
      padding: 'x'.repeat(CLIENT_METADATA_LIMITS.bodyBytes),
    });
    expect(result.status).toBe(400);
    expect(body.error_description).toMatch(/larger than/);
  });

  it('does not store unknown members', async () => {
    const { t, body } = await register({ redirect_uris: ['https://a.example/cb'], extra: 'y'.repeat(1000) });
    const stored = await t.storage.clients.get('demo', String(body.client_id));
    expect(JSON.stringify(stored)).not.toContain('yyyy');
  });

  it.each([
    [
      'a client_name over the limit',
      { client_name: 'n'.repeat(CLIENT_METADATA_LIMITS.clientNameLength + 1) },
    ],
    [
      'a redirect URI over the limit',
      { redirect_uris: [`https://a.example/${'p'.repeat(CLIENT_METADATA_LIMITS.uriLength)}`] },
    ],
    ['a scope over the limit', { scope: 's'.repeat(CLIENT_METADATA_LIMITS.scopeLength + 1) }],
    ['a client_uri that is not http(s)', { client_uri: 'ftp://a.example' }],
  ])('refuses %s', async (_, metadata) => {
    const { result, body } = await register({ redirect_uris: ['https://a.example/cb'], ...metadata });
    expect(result.status).toBe(400);
    expect(body.error).toBe('invalid_client_metadata');
  });
});

describe('bounded storage: a cap on the dynamic clients a tenant holds (maxDynamicClients)', () => {
  const metadata = { redirect_uris: ['https://a.example/cb'], token_endpoint_auth_method: 'none' };

  it('answers 429 rate_limited with Retry-After once the tenant holds the cap, and stores nothing', async () => {
    const t = await createTestServer({ options: { maxDynamicClients: 3 } });
    for (let i = 0; i < 3; i++) expect((await registerOn(t, metadata)).result.status).toBe(201);
    const { result, body } = await registerOn(t, metadata);
    expect(result.status).toBe(429);
    expect(body).toMatchObject({ error: 'rate_limited' });
    expect(String(body.error_description)).toMatch(/as many registered clients as it accepts/);
    expect(Number(result.headers['retry-after'])).toBeGreaterThan(0);
    expect(await t.storage.clients.countDynamic('demo', t.clock.now())).toBe(3);
    // Provisioned clients are the host's: neither counted nor refused.
    await t.server.clients.provision('demo', { grantTypes: ['client_credentials'] });
    expect(await t.storage.clients.countDynamic('demo', t.clock.now())).toBe(3);
  });

  it('room comes back as unused clients expire, or as the host removes some', async () => {
    const t = await createTestServer({ options: { maxDynamicClients: 2, unusedClientTtlSeconds: 60 } });
    expect((await registerOn(t, metadata)).result.status).toBe(201);
    t.clock.advance(30_000);
    const second = await registerOn(t, metadata);
    expect(second.result.status).toBe(201);
    expect((await registerOn(t, metadata)).result.status).toBe(429);
    t.clock.advance(30_001);
    expect((await registerOn(t, metadata)).result.status).toBe(201);
    expect((await registerOn(t, metadata)).result.status).toBe(429);
    expect(await t.server.clients.remove('demo', String(second.body.client_id))).toBe(true);
    expect((await registerOn(t, metadata)).result.status).toBe(201);
  });

  it('defaults to 10 000 and is validated at creation', async () => {
    const t = await createTestServer();
    const full = { ...t.storage.clients, countDynamic: async () => 10_000 };
    const capped = await createTestServer({ options: { storage: { ...t.storage, clients: full } } });
    expect((await registerOn(capped, metadata)).result.status).toBe(429);
    const below = { ...t.storage.clients, countDynamic: async () => 9_999 };
    const open = await createTestServer({ options: { storage: { ...t.storage, clients: below } } });
    expect((await registerOn(open, metadata)).result.status).toBe(201);
    for (const bad of [0, -1, 1.5, Number.NaN]) {
      await expect(createTestServer({ options: { maxDynamicClients: bad } })).rejects.toMatchObject({
        code: 'ERR_INVALID_OPTIONS',
      });
    }
  });
});

describe('POST /register: browser requests only from allowed origins', () => {
  const metadata = { redirect_uris: ['https://app.example/cb'], token_endpoint_auth_method: 'none' };
  async function registerFrom(
    origin: string | undefined,
    options: Parameters<typeof createTestServer>[0] = {},
  ) {
    const t = await createTestServer(options);
    return t.server.register(
      {
        method: 'POST',
        path: '/tenant/demo/register',
        query: '',
        headers: { 'content-type': 'application/json', ...(origin === undefined ? {} : { origin }) },
        body: JSON.stringify(metadata),
      },
      'demo',
    );
  }

  it('a page on another origin (or a DNS-rebinding name, or the opaque origin) gets 403 invalid_request', async () => {
    for (const origin of ['https://evil.example', 'http://rebind.attacker.example:8787', 'null']) {
      const result = await registerFrom(origin);
      expect(result.status, origin).toBe(403);
      expect(json(result)).toEqual({
        error: 'invalid_request',
        error_description: 'cross-origin request refused',
      });
      expect(result.headers['cache-control']).toBe('no-store');
    }
  });

  it('requests without Origin (native and server-side clients) and from the server origin register', async () => {
    expect((await registerFrom(undefined)).status).toBe(201);
    expect((await registerFrom(BASE_URL)).status).toBe(201);
  });

  it('allowedOrigins admits browser-based clients; "any" admits every origin', async () => {
    const options = { options: { allowedOrigins: ['https://inspector.example'] } };
    expect((await registerFrom('https://inspector.example', options)).status).toBe(201);
    expect((await registerFrom('https://other.example', options)).status).toBe(403);
    expect((await registerFrom('https://other.example', { options: { allowedOrigins: 'any' } })).status).toBe(
      201,
    );
  });

  it('allowedOrigins is validated at creation: entries must be bare http(s) origins', async () => {
    for (const bad of [['https://a.example/path'], ['not a url'], ['ftp://a.example']]) {
      await expect(createTestServer({ options: { allowedOrigins: bad } })).rejects.toMatchObject({
        name: 'OAuthCoreError',
        code: 'ERR_INVALID_OPTIONS',
      });
    }
  });
});

const EC_PUBLIC = {
  kty: 'EC',
  crv: 'P-256',
  x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU',
  y: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0',
  kid: 'k1',
};

describe('POST /register: a jwks_uri follows the tenant fetch allowlist (allowedCimdDomains)', () => {
  const privateKeyJwt = (extra: Record<string, unknown>) => ({
    redirect_uris: ['https://app.example/cb'],
    token_endpoint_auth_method: 'private_key_jwt',
    ...extra,
  });
  const json = { 'content-type': 'application/json' };

  it('with no allowed domain, a jwks_uri is refused (invalid_client_metadata); keys by value still register', async () => {
    const t = await createTestServer();
    const refused = await registerOn(t, privateKeyJwt({ jwks_uri: 'https://app.example/jwks.json' }), json);
    expect(refused.result.status).toBe(400);
    expect(refused.body).toMatchObject({
      error: 'invalid_client_metadata',
      error_description: expect.stringMatching(/fetches no jwks_uri/),
    });
    const inline = await registerOn(t, privateKeyJwt({ jwks: { keys: [EC_PUBLIC] } }), json);
    expect(inline.result.status, inline.result.body).toBe(201);
  });

  it('a jwks_uri on a host outside the allowlist is refused; one on an allowed host registers', async () => {
    const t = await createTestServer({ tenant: { allowedCimdDomains: ['*.app.example'] } });
    const outside = await registerOn(
      t,
      privateKeyJwt({ jwks_uri: 'https://internal.example/jwks.json' }),
      json,
    );
    expect(outside.result.status).toBe(400);
    expect(String(outside.body.error_description)).toMatch(/internal\.example is not allowed/);
    const inside = await registerOn(
      t,
      privateKeyJwt({ jwks_uri: 'https://keys.app.example/jwks.json' }),
      json,
    );
    expect(inside.result.status, inside.result.body).toBe(201);
  });
});

describe('POST /register: private_key_jwt clients (RFC 7591 §2 jwks_uri / jwks, RFC 7523)', () => {
  it('registers a client with a jwks_uri on an allowed host: no secret, the keys location returned and stored', async () => {
    const t = await createTestServer({ tenant: { allowedCimdDomains: ['app.example'] } });
    const { result, body } = await registerOn(
      t,
      {
        redirect_uris: ['https://app.example/cb'],
        token_endpoint_auth_method: 'private_key_jwt',
        jwks_uri: 'https://app.example/jwks.json',
      },
      { 'content-type': 'application/json' },
    );
    expect(result.status, result.body).toBe(201);
    expect(body).toMatchObject({
      token_endpoint_auth_method: 'private_key_jwt',
      jwks_uri: 'https://app.example/jwks.json',
    });
    expect(body).not.toHaveProperty('client_secret');
    const stored = await t.storage.clients.get('demo', String(body.client_id));
    expect(stored).toMatchObject({
      tokenEndpointAuthMethod: 'private_key_jwt',
      jwksUri: 'https://app.example/jwks.json',
    });
    expect(stored?.clientSecretHash).toBeUndefined();
  });

  it('registers a client with its keys by value', async () => {
    const { result, body } = await register({
      redirect_uris: ['https://app.example/cb'],
      token_endpoint_auth_method: 'private_key_jwt',
      jwks: { keys: [EC_PUBLIC] },
    });
    expect(result.status, result.body).toBe(201);
    expect(body.jwks).toEqual({ keys: [EC_PUBLIC] });
  });

  it.each([
    ['neither jwks_uri nor jwks', {}, /give jwks_uri or jwks/],
    [
      'both jwks_uri and jwks',
      { jwks_uri: 'https://app.example/jwks.json', jwks: { keys: [EC_PUBLIC] } },
      /exactly one/,
    ],
    ['an http jwks_uri', { jwks_uri: 'http://app.example/jwks.json' }, /jwks_uri must be an https URL/],
    [
      'a jwks_uri with a fragment',
      { jwks_uri: 'https://app.example/jwks.json#k' },
      /without user information or fragment/,
    ],
    ['a private key in jwks', { jwks: { keys: [{ ...EC_PUBLIC, d: 'secret' }] } }, /private key material/],
    [
      'a symmetric key in jwks',
      { jwks: { keys: [{ kty: 'oct', k: 'c2VjcmV0' }] } },
      /kty must be RSA, EC or OKP/,
    ],
    ['an empty key set', { jwks: { keys: [] } }, /at least one key/],
    ['a key set that is not an object', { jwks: 'keys' }, /jwks/],
  ])('refuses %s (invalid_client_metadata)', async (_name, extra, message) => {
    const { result, body } = await register({
      redirect_uris: ['https://app.example/cb'],
      token_endpoint_auth_method: 'private_key_jwt',
      ...extra,
    });
    expect(result.status).toBe(400);
    expect(body.error).toBe('invalid_client_metadata');
    expect(String(body.error_description)).toMatch(message);
  });

  it('keeps a token_endpoint_auth_signing_alg it accepts, refuses another', async () => {
    const { t, result, body } = await register({
      redirect_uris: ['https://app.example/cb'],
      token_endpoint_auth_method: 'private_key_jwt',
      token_endpoint_auth_signing_alg: 'ES256',
      jwks: { keys: [EC_PUBLIC] },
    });
    expect(result.status, result.body).toBe(201);
    expect(body.token_endpoint_auth_signing_alg).toBe('ES256');
    expect((await t.storage.clients.get('demo', String(body.client_id)))?.tokenEndpointAuthSigningAlg).toBe(
      'ES256',
    );
    const refused = await register({
      redirect_uris: ['https://app.example/cb'],
      token_endpoint_auth_method: 'private_key_jwt',
      token_endpoint_auth_signing_alg: 'HS256',
      jwks: { keys: [EC_PUBLIC] },
    });
    expect(refused.result.status).toBe(400);
    expect(String(refused.body.error_description)).toMatch(/token_endpoint_auth_signing_alg must be one of/);
  });

  it('keys sent with another method are not kept', async () => {
    const { t, body } = await register({
      redirect_uris: ['https://app.example/cb'],
      token_endpoint_auth_method: 'none',
      jwks_uri: 'https://app.example/jwks.json',
    });
    expect(body).not.toHaveProperty('jwks_uri');
    expect(await t.storage.clients.get('demo', String(body.client_id))).not.toHaveProperty('jwksUri');
  });
});

describe('POST /register: application_type (OIDC Registration §2, MCP SEP-837)', () => {
  const register201 = async (metadata: Record<string, unknown>) => {
    const { t, result, body } = await register({ token_endpoint_auth_method: 'none', ...metadata });
    expect(result.status, result.body).toBe(201);
    const stored = await t.storage.clients.get('demo', String(body.client_id));
    return { body, stored };
  };

  it('defaults to web when every redirect URI is https (the OIDC default)', async () => {
    const { body, stored } = await register201({ redirect_uris: ['https://app.example/cb'] });
    expect(body.application_type).toBe('web');
    expect(stored?.applicationType).toBe('web');
  });

  it('defaults to native when a redirect URI is loopback http or a private-use scheme', async () => {
    for (const uri of ['http://127.0.0.1/callback', 'com.example.app:/oauth2redirect']) {
      const { body, stored } = await register201({ redirect_uris: ['https://app.example/cb', uri] });
      expect(body.application_type, uri).toBe('native');
      expect(stored?.applicationType).toBe('native');
    }
  });

  it('native allows loopback http (127.0.0.1, [::1], localhost), private-use schemes and https', async () => {
    const { body } = await register201({
      application_type: 'native',
      redirect_uris: [
        'http://127.0.0.1:33418/callback',
        'http://[::1]/callback',
        'http://localhost:6274/oauth/callback',
        'vscode://vscode.github-authentication/did-authenticate',
        'cursor://anysphere.cursor-mcp/oauth/callback',
        'com.example.app:/oauth2redirect',
        'https://app.example/cb',
      ],
    });
    expect(body.application_type).toBe('native');
  });

  it.each([
    ['loopback http', 'http://127.0.0.1/callback'],
    ['localhost http', 'http://localhost:6274/oauth/callback'],
    ['a private-use scheme', 'com.example.app:/oauth2redirect'],
  ])('web refuses %s (invalid_redirect_uri)', async (_name, uri) => {
    const { result, body } = await register({
      token_endpoint_auth_method: 'none',
      application_type: 'web',
      redirect_uris: ['https://app.example/cb', uri],
    });
    expect(result.status).toBe(400);
    expect(body.error).toBe('invalid_redirect_uri');
    expect(String(body.error_description)).toMatch(/https for a web client/);
  });

  it('a private-use scheme without a dot (cursor://, vscode://) needs application_type "native" stated', async () => {
    const { result, body } = await register({
      token_endpoint_auth_method: 'none',
      redirect_uris: ['cursor://anysphere.cursor-mcp/oauth/callback'],
    });
    expect(result.status).toBe(400);
    expect(String(body.error_description)).toMatch(/allowed when application_type is "native"/);
    const web = await register({
      token_endpoint_auth_method: 'none',
      application_type: 'web',
      redirect_uris: ['vscode://vscode.github-authentication/did-authenticate'],
    });
    expect(web.result.status).toBe(400);
  });

  it('refuses an application_type other than web or native', async () => {
    const { result, body } = await register({
      token_endpoint_auth_method: 'none',
      application_type: 'desktop',
      redirect_uris: ['https://app.example/cb'],
    });
    expect(result.status).toBe(400);
    expect(body.error).toBe('invalid_client_metadata');
  });

  it('native rules do not loosen the others: http on a public host stays refused', async () => {
    const { result } = await register({
      token_endpoint_auth_method: 'none',
      application_type: 'native',
      redirect_uris: ['http://app.example/cb'],
    });
    expect(result.status).toBe(400);
  });
});
