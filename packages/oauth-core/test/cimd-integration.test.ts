import { describe, expect, it } from 'vitest';
import type { CimdResolver, ClientMetadataDocument } from '../src/index.js';
import {
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
      get(
        '/tenant/demo/authorize',
        {
          client_id: clientId,
          response_type: 'code',
          redirect_uri: REDIRECT_URI,
          code_challenge: challenge,
          code_challenge_method: 'S256',
          state: 's',
          scope: 'mcp',
        },
        USER,
      ),
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
    const { challenge } = pkce();
    const result = await t.server.authorize(
      get(
        '/tenant/demo/authorize',
        {
          client_id: client.client_id,
          response_type: 'code',
          redirect_uri: REDIRECT_URI,
          code_challenge: challenge,
          code_challenge_method: 'S256',
        },
        USER,
      ),
      'demo',
    );
    expect(result.status).toBe(302);
    expect(fake.calls).toHaveLength(0);
  });
});
