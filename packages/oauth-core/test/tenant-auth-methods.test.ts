import { describe, expect, it } from 'vitest';
import type { CimdResolver, ClientMetadataDocument } from '../src/cimd/types.js';
import { createMemoryStorage } from '../src/index.js';
import {
  basic,
  createTestServer,
  exchangeCode,
  get,
  json,
  obtainCode,
  postForm,
  REDIRECT_URI,
  registerClient,
  USER,
} from './helpers.js';

const CONFIDENTIAL_ONLY = ['client_secret_basic', 'private_key_jwt'] as const;

function registration(body: Record<string, unknown>) {
  return {
    method: 'POST',
    path: '/tenant/demo/register',
    query: '',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ redirect_uris: [REDIRECT_URI], ...body }),
  };
}

function documentResolver(document: Omit<ClientMetadataDocument, 'client_id'>): CimdResolver {
  return {
    resolve: async (clientId) => ({
      ok: true,
      cached: false,
      document: { client_id: clientId, ...document },
    }),
  } as CimdResolver;
}

const CIMD_CLIENT = 'https://client.example/oauth/metadata.json';

describe('TenantConfig.tokenEndpointAuthMethods (RFC 8414 token_endpoint_auth_methods_supported per tenant)', () => {
  it('advertises only the listed methods, in the server order, on all three endpoints', async () => {
    const { server } = await createTestServer({
      tenant: { tokenEndpointAuthMethods: ['private_key_jwt', 'client_secret_basic'] },
    });
    const metadata = json(await server.authorizationServerMetadata(get('/'), 'demo'));
    for (const key of [
      'token_endpoint_auth_methods_supported',
      'revocation_endpoint_auth_methods_supported',
      'introspection_endpoint_auth_methods_supported',
    ]) {
      expect(metadata[key]).toEqual(['client_secret_basic', 'private_key_jwt']);
    }
    expect(metadata.token_endpoint_auth_signing_alg_values_supported).toEqual([
      'RS256',
      'PS256',
      'ES256',
      'EdDSA',
    ]);
  });

  it('advertises private_key_jwt only when the server offers it (a replay store), even when listed', async () => {
    const { onceStore: _, ...withoutReplays } = createMemoryStorage();
    const { server } = await createTestServer({
      tenant: { tokenEndpointAuthMethods: [...CONFIDENTIAL_ONLY] },
      options: { storage: withoutReplays },
    });
    const metadata = json(await server.authorizationServerMetadata(get('/'), 'demo'));
    expect(metadata.token_endpoint_auth_methods_supported).toEqual(['client_secret_basic']);
    expect(metadata).not.toHaveProperty('token_endpoint_auth_signing_alg_values_supported');
  });

  it('refuses to register a method the tenant does not accept (invalid_client_metadata), the default one included', async () => {
    const { server } = await createTestServer({ tenant: { tokenEndpointAuthMethods: ['none'] } });
    const refused = await server.register(
      registration({ token_endpoint_auth_method: 'client_secret_basic' }),
      'demo',
    );
    expect(refused.status).toBe(400);
    expect(json(refused)).toMatchObject({ error: 'invalid_client_metadata' });
    expect(String(json(refused).error_description)).toContain(
      'client_secret_basic is not accepted on this tenant',
    );
    // Without a method the registration default (client_secret_basic) applies, and is refused the same way.
    expect((await server.register(registration({}), 'demo')).status).toBe(400);
    expect((await server.register(registration({ token_endpoint_auth_method: 'none' }), 'demo')).status).toBe(
      201,
    );
  });

  it('refuses to provision a client with a method the tenant does not accept', async () => {
    const { server } = await createTestServer({
      tenant: { tokenEndpointAuthMethods: [...CONFIDENTIAL_ONLY] },
    });
    await expect(
      server.clients.provision('demo', {
        redirectUris: [REDIRECT_URI],
        grantTypes: ['authorization_code'],
        tokenEndpointAuthMethod: 'none',
      }),
    ).rejects.toMatchObject({ code: 'invalid_client_metadata' });
    const created = await server.clients.provision('demo', {
      redirectUris: [REDIRECT_URI],
      grantTypes: ['authorization_code'],
    });
    expect(created.clientSecret).toBeDefined();
  });

  it('a confidential client runs the whole code flow with Basic on a tenant without `none`', async () => {
    const t = await createTestServer({ tenant: { tokenEndpointAuthMethods: [...CONFIDENTIAL_ONLY] } });
    const client = await registerClient(t.server, { token_endpoint_auth_method: 'client_secret_basic' });
    const { code, verifier } = await obtainCode(t, client.client_id);
    const exchanged = await exchangeCode(t, client, code, verifier);
    expect(exchanged.status).toBe(200);
    const refreshed = await t.server.token(
      postForm(
        '/tenant/demo/token',
        { grant_type: 'refresh_token', refresh_token: String(json(exchanged).refresh_token) },
        basic(client.client_id, client.client_secret!),
      ),
      'demo',
    );
    expect(refreshed.status).toBe(200);
  });

  it('a client registered before `none` was removed is refused at /authorize and at /token (invalid_client)', async () => {
    const t = await createTestServer();
    const client = await registerClient(t.server, { token_endpoint_auth_method: 'none' });
    const { code, verifier } = await obtainCode(t, client.client_id);
    t.tenant.tokenEndpointAuthMethods = [...CONFIDENTIAL_ONLY];
    const exchanged = await exchangeCode(t, client, code, verifier);
    expect(exchanged.status).toBe(401);
    expect(json(exchanged)).toMatchObject({ error: 'invalid_client' });
    expect(String(json(exchanged).error_description)).toContain('does not accept none');
    await expect(obtainCode(t, client.client_id)).rejects.toThrow(/no code|expected a redirect/);
    const page = await t.server.authorize(
      get(
        '/tenant/demo/authorize',
        {
          client_id: client.client_id,
          response_type: 'code',
          redirect_uri: REDIRECT_URI,
          code_challenge: 'x'.repeat(43),
          code_challenge_method: 'S256',
        },
        USER,
      ),
      'demo',
    );
    expect(page.status).toBe(400);
    expect(page.body).toContain('does not accept none');
  });

  it('a metadata document that names only `none` cannot be used on a tenant without it', async () => {
    const t = await createTestServer({
      tenant: { tokenEndpointAuthMethods: [...CONFIDENTIAL_ONLY], allowedCimdDomains: ['client.example'] },
      cimdResolver: documentResolver({
        client_name: 'Public app',
        redirect_uris: [REDIRECT_URI],
        token_endpoint_auth_method: 'none',
      }),
    });
    const page = await t.server.authorize(
      get(
        '/tenant/demo/authorize',
        {
          client_id: CIMD_CLIENT,
          response_type: 'code',
          redirect_uri: REDIRECT_URI,
          code_challenge: 'x'.repeat(43),
          code_challenge_method: 'S256',
        },
        USER,
      ),
      'demo',
    );
    expect(page.status).toBe(400);
    expect(page.body).toContain('names no authentication method this server supports');
  });

  it('a ChatGPT-shaped document (`none` and `private_key_jwt`) negotiates `none` only where the tenant accepts it', async () => {
    const document = {
      client_name: 'ChatGPT-shaped',
      redirect_uris: [REDIRECT_URI],
      token_endpoint_auth_methods_supported: ['none', 'private_key_jwt'],
      token_endpoint_auth_signing_alg: 'RS256',
      jwks_uri: 'https://client.example/jwks.json',
    };
    // On a tenant accepting only `none`, private_key_jwt is not picked even though the server offers it.
    const t = await createTestServer({
      tenant: { tokenEndpointAuthMethods: ['none'], allowedCimdDomains: ['client.example'] },
      cimdResolver: documentResolver(document),
    });
    const { code, verifier } = await obtainCode(t, CIMD_CLIENT);
    const exchanged = await exchangeCode(t, { client_id: CIMD_CLIENT }, code, verifier);
    expect(exchanged.status).toBe(200);
  });

  it.each([[[]], [['client_secret_jwt']]])(
    'a tenant listing %j is a configuration error (ERR_INVALID_OPTIONS, thrown)',
    async (methods) => {
      const { server } = await createTestServer({ tenant: { tokenEndpointAuthMethods: methods as never } });
      await expect(server.authorizationServerMetadata(get('/'), 'demo')).rejects.toMatchObject({
        name: 'OAuthCoreError',
        code: 'ERR_INVALID_OPTIONS',
      });
    },
  );
});
