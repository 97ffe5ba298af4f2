import { describe, expect, it } from 'vitest';
import { createCimdResolver } from '../src/cimd/resolver.js';
import type { CimdResolver, ClientMetadataDocument } from '../src/cimd/types.js';
import { CLIENT_ASSERTION_TYPE_JWT_BEARER } from '../src/client-assertion.js';
import { createMemoryStorage } from '../src/index.js';
import type { CimdFetchAttributes } from '../src/metrics-types.js';
import {
  authorizeRequest,
  consentFormFields,
  createTestServer,
  get,
  json,
  location,
  pkce,
  postForm,
  REDIRECT_URI,
  registerClient,
  USER,
} from './helpers.js';

const CLIENT_ID = 'https://app.example/oauth/client.json';

function fakeResolver(initial: Partial<ClientMetadataDocument> = {}) {
  let document: ClientMetadataDocument = {
    client_id: CLIENT_ID,
    client_name: 'Metadata App',
    redirect_uris: [REDIRECT_URI],
    ...initial,
  };
  const calls: { clientId: string; allowedDomains: readonly string[] }[] = [];
  const resolver: CimdResolver = {
    async resolve(clientId, context) {
      calls.push({ clientId, allowedDomains: context.allowedDomains });
      if (!context.allowedDomains.includes(new URL(clientId).hostname)) {
        return {
          ok: false,
          error: 'domain_not_allowed',
          description: 'the client domain is not allowed here',
          detail: 'x',
        };
      }
      return { ok: true, document, cached: false };
    },
  };
  return {
    resolver,
    calls,
    change: (next: Partial<ClientMetadataDocument>) => (document = { ...document, ...next }),
  };
}

async function setup(initial: Partial<ClientMetadataDocument> = {}) {
  const fake = fakeResolver(initial);
  const t = await createTestServer({
    cimdResolver: fake.resolver,
    tenant: { allowedCimdDomains: ['app.example'] },
  });
  const { challenge, verifier } = pkce();
  const authorize = (clientId = CLIENT_ID) =>
    t.server.authorize(
      authorizeRequest(clientId, { code_challenge: challenge, state: 's', scope: 'mcp' }),
      'demo',
    );
  const redeem = (code: string, redirectUri = REDIRECT_URI) =>
    t.server.token(
      postForm('/tenant/demo/token', {
        grant_type: 'authorization_code',
        code,
        code_verifier: verifier,
        redirect_uri: redirectUri,
        client_id: CLIENT_ID,
      }),
      'demo',
    );
  return { t, fake, authorize, redeem };
}

async function approve(t: Awaited<ReturnType<typeof setup>>['t'], consentUrl: URL): Promise<string> {
  const req = consentUrl.searchParams.get('req') ?? '';
  const page = await t.server.consentPage(get('/tenant/demo/consent', { req }, USER), 'demo');
  expect(page.body).toContain('app.example');
  const { cookie, csrfToken } = consentFormFields(page);
  const decided = await t.server.consent(
    postForm('/tenant/demo/consent', { req, decision: 'approve', csrf_token: csrfToken }, { cookie }, USER),
    'demo',
  );
  return location(decided).searchParams.get('code') ?? '';
}

describe('metadata-document clients through the CimdResolver', () => {
  it('resolves an https client_id with the tenant allowlist, shows the document host, keys consent on the URL', async () => {
    const { t, fake, authorize, redeem } = await setup();
    const consentUrl = location(await authorize());
    expect(fake.calls[0]).toEqual({ clientId: CLIENT_ID, allowedDomains: ['app.example'] });
    const pending = await t.storage.pendingAuthorizations.get(
      'demo',
      consentUrl.searchParams.get('req') ?? '',
    );
    expect(pending).toMatchObject({
      clientId: CLIENT_ID,
      clientType: 'metadata_document',
      clientHost: 'app.example',
      clientName: 'Metadata App',
    });
    const code = await approve(t, consentUrl);
    const consents = await t.storage.consents.list('demo', USER, CLIENT_ID, t.clock.now());
    expect(consents.map((c) => c.clientId)).toEqual([CLIENT_ID]);
    const tokens = json(await redeem(code));
    expect(tokens.refresh_token).toMatch(/^[A-Za-z0-9_-]{32,}$/);
    expect(t.events.at(-1)).toEqual({
      endpoint: 'token',
      status: 200,
      grant_type: 'authorization_code',
      client_type: 'metadata_document',
      reason: 'token.issued',
    });
  });

  it('pins the redirect_uri: a document changed between /authorize and /token cannot send the code elsewhere', async () => {
    const { t, fake, authorize, redeem } = await setup();
    const code = await approve(t, location(await authorize()));
    fake.change({ redirect_uris: ['https://evil.example/cb'] });
    expect(json(await redeem(code, 'https://evil.example/cb')).error).toBe('invalid_grant');
    const second = await setup();
    const code2 = await approve(second.t, location(await second.authorize()));
    second.fake.change({ redirect_uris: ['https://evil.example/cb'] });
    expect((await second.redeem(code2)).status).toBe(200);
  });

  it('a refused document is shown as invalid_client at /authorize with the resolver description', async () => {
    const { authorize } = await setup();
    const result = await authorize('https://other.example/client.json');
    expect(result.status).toBe(400);
    expect(result.body).toContain('invalid_client');
    expect(result.body).toContain('the client domain is not allowed here');
  });

  it('a document asking for a shared-secret auth method is invalid_client', async () => {
    const { authorize } = await setup({ token_endpoint_auth_method: 'client_secret_basic' });
    expect((await authorize()).body).toContain('invalid_client');
  });

  it('without a resolver, an https client_id is invalid_client', async () => {
    const t = await createTestServer();
    const result = await t.server.token(
      postForm('/tenant/demo/token', {
        grant_type: 'refresh_token',
        refresh_token: 'x',
        client_id: CLIENT_ID,
      }),
      'demo',
    );
    expect(result.status).toBe(401);
    expect(json(result).error).toBe('invalid_client');
  });

  it('a plain client_id still goes to the registry when a resolver is configured', async () => {
    const { t, fake } = await setup();
    const client = await registerClient(t.server, { token_endpoint_auth_method: 'none' });
    const result = await t.server.authorize(authorizeRequest(client.client_id), 'demo');
    expect(result.status).toBe(302);
    expect(fake.calls).toHaveLength(0);
  });
});

describe('metadata-document clients: the token endpoint auth method is negotiated (private_key_jwt over none)', () => {
  const KEYS = { keys: [{ kty: 'OKP', crv: 'Ed25519', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo' }] };

  async function negotiate(document: Partial<ClientMetadataDocument>, withReplayStore = true) {
    const fake = fakeResolver(document);
    const { onceStore: _, ...withoutReplays } = createMemoryStorage();
    const t = await createTestServer({
      cimdResolver: fake.resolver,
      tenant: { allowedCimdDomains: ['app.example'] },
      ...(withReplayStore ? {} : { options: { storage: withoutReplays } }),
    });
    // A refresh request identifies the client before the token is looked at: what it answers shows the method.
    const result = await t.server.token(
      postForm('/tenant/demo/token', {
        grant_type: 'refresh_token',
        refresh_token: 'x',
        client_id: CLIENT_ID,
      }),
      'demo',
    );
    return { status: result.status, body: json(result) };
  }

  it('a document listing none and private_key_jwt with keys must use private_key_jwt', async () => {
    const { status, body } = await negotiate({
      token_endpoint_auth_methods_supported: ['none', 'private_key_jwt'],
      jwks_uri: 'https://app.example/jwks.json',
    });
    expect(status).toBe(401);
    expect(String(body.error_description)).toMatch(/authenticates with private_key_jwt/);
  });

  it('a single token_endpoint_auth_method of private_key_jwt (keys by value) must use it too', async () => {
    const { status, body } = await negotiate({ token_endpoint_auth_method: 'private_key_jwt', jwks: KEYS });
    expect(status).toBe(401);
    expect(String(body.error_description)).toMatch(/authenticates with private_key_jwt/);
  });

  it('falls back to none when the server keeps no assertion jtis, or the document publishes no keys', async () => {
    const listed = { token_endpoint_auth_methods_supported: ['none', 'private_key_jwt'] } as const;
    const withoutStore = await negotiate({ ...listed, jwks_uri: 'https://app.example/jwks.json' }, false);
    expect(withoutStore.body).toMatchObject({ error: 'invalid_grant' });
    const withoutKeys = await negotiate(listed);
    expect(withoutKeys.body).toMatchObject({ error: 'invalid_grant' });
  });

  it('private_key_jwt alone is invalid_client when the document has no keys or the server cannot verify', async () => {
    const noKeys = await negotiate({ token_endpoint_auth_method: 'private_key_jwt' });
    expect(noKeys.status).toBe(401);
    expect(String(noKeys.body.error_description)).toMatch(/publishes no jwks_uri or jwks/);
    const noStore = await negotiate({ token_endpoint_auth_method: 'private_key_jwt', jwks: KEYS }, false);
    expect(noStore.status).toBe(401);
    expect(String(noStore.body.error_description)).toMatch(/does not accept private_key_jwt/);
  });

  it('a document declaring a signing alg the server refuses cannot use private_key_jwt', async () => {
    const fallback = await negotiate({
      token_endpoint_auth_methods_supported: ['none', 'private_key_jwt'],
      token_endpoint_auth_signing_alg: 'HS256',
      jwks: KEYS,
    });
    expect(fallback.body).toMatchObject({ error: 'invalid_grant' });
    const only = await negotiate({
      token_endpoint_auth_method: 'private_key_jwt',
      token_endpoint_auth_signing_alg: 'HS256',
      jwks: KEYS,
    });
    expect(only.status).toBe(401);
    expect(String(only.body.error_description)).toMatch(/token_endpoint_auth_signing_alg is not one of/);
  });

  it('a document listing only methods the server cannot use for it is invalid_client', async () => {
    const { status, body } = await negotiate({ token_endpoint_auth_methods_supported: ['tls_client_auth'] });
    expect(status).toBe(401);
    expect(String(body.error_description)).toMatch(/names no authentication method this server supports/);
  });

  it('a jwks_uri on a host outside the tenant allowlist is refused before any fetch', async () => {
    const fake = fakeResolver({
      token_endpoint_auth_method: 'private_key_jwt',
      jwks_uri: 'https://keys.elsewhere.example/jwks.json',
    });
    let fetches = 0;
    const t = await createTestServer({
      cimdResolver: fake.resolver,
      tenant: { allowedCimdDomains: ['app.example'] },
      options: {
        jwksResolver: {
          resolve: async () => {
            fetches += 1;
            return { ok: false, description: 'unreachable' };
          },
        },
      },
    });
    const result = await t.server.token(
      postForm('/tenant/demo/token', {
        grant_type: 'refresh_token',
        refresh_token: 'x',
        client_assertion_type: CLIENT_ASSERTION_TYPE_JWT_BEARER,
        client_assertion: unsignedAssertion(CLIENT_ID),
      }),
      'demo',
    );
    expect(result.status).toBe(401);
    expect(String(json(result).error_description)).toMatch(/keys.elsewhere.example is not allowed/);
    expect(fetches).toBe(0);
  });
});

function unsignedAssertion(clientId: string): string {
  const part = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'ES256', kid: 'k1' })}.${part({ iss: clientId, sub: clientId })}.c2ln`;
}

describe('a client_id with a URL scheme is a metadata-document client id, whatever the scheme', () => {
  const HTTP_CLIENT_ID = 'http://app.example/client.json';

  async function setupWithResolver() {
    const fetches: CimdFetchAttributes[] = [];
    const networkCalls: string[] = [];
    const cimdResolver = createCimdResolver({
      fetch: async (url) => {
        networkCalls.push(url);
        throw new Error('an http client_id must be refused before any fetch');
      },
      metrics: { event: () => {}, cimdFetch: (attributes) => fetches.push(attributes) },
    });
    const t = await createTestServer({ cimdResolver, tenant: { allowedCimdDomains: ['app.example'] } });
    return { t, fetches, networkCalls };
  }

  it('an http client_id at /authorize is refused with the CIMD not_https reason and counted, not reported as unknown', async () => {
    const { t, fetches, networkCalls } = await setupWithResolver();
    const result = await t.server.authorize(authorizeRequest(HTTP_CLIENT_ID), 'demo');
    expect(result.status).toBe(400);
    expect(result.body).toContain('invalid_client');
    expect(result.body).toContain('a URL client_id must use the https scheme');
    expect(result.body).not.toContain('unknown client');
    expect(fetches).toEqual([{ status: 'error', cached: false, cimd_error: 'not_https' }]);
    expect(networkCalls).toEqual([]);
  });

  it('an http client_id at /token is refused with the CIMD not_https reason and counted, not reported as unknown', async () => {
    const { t, fetches } = await setupWithResolver();
    const result = await t.server.token(
      postForm('/tenant/demo/token', {
        grant_type: 'authorization_code',
        code: 'x',
        code_verifier: 'v'.repeat(43),
        redirect_uri: REDIRECT_URI,
        client_id: HTTP_CLIENT_ID,
      }),
      'demo',
    );
    expect(result.status).toBe(401);
    expect(json(result).error).toBe('invalid_client');
    expect(json(result).error_description).toBe('a URL client_id must use the https scheme');
    expect(fetches).toEqual([{ status: 'error', cached: false, cimd_error: 'not_https' }]);
  });
});
