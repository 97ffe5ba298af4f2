import { describe, expect, it } from 'vitest';
import type { CimdResolver } from '../../src/cimd/types.js';
import { wellKnownUrl } from '../../src/discovery-paths.js';
import { createMemoryStorage, generateSigningKey } from '../../src/index.js';
import { BASE_URL, createTestServer, get, ISSUER, json, RESOURCE, registerClient } from '../helpers.js';

const EC_PUBLIC = {
  kty: 'EC',
  crv: 'P-256',
  x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU',
  y: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0',
  kid: 'k1',
};

const METHODS = ['none', 'client_secret_basic', 'client_secret_post', 'private_key_jwt'];
// The token endpoint advertises what a client may register: not client_secret_post (see below).
const TOKEN_METHODS = ['none', 'client_secret_basic', 'private_key_jwt'];

describe('authorization server metadata (RFC 8414)', () => {
  it('lists every endpoint under one exact issuer, and exactly the grants and methods that work', async () => {
    const { server } = await createTestServer();
    const result = await server.authorizationServerMetadata(get('/'), 'demo');
    expect(result.status).toBe(200);
    expect(json(result)).toEqual({
      issuer: ISSUER,
      authorization_endpoint: `${ISSUER}/authorize`,
      token_endpoint: `${ISSUER}/token`,
      registration_endpoint: `${ISSUER}/register`,
      revocation_endpoint: `${ISSUER}/revoke`,
      introspection_endpoint: `${ISSUER}/introspect`,
      jwks_uri: `${ISSUER}/.well-known/jwks.json`,
      userinfo_endpoint: `${ISSUER}/userinfo`,
      response_types_supported: ['code'],
      response_modes_supported: ['query'],
      grant_types_supported: [
        'authorization_code',
        'refresh_token',
        'client_credentials',
        'urn:ietf:params:oauth:grant-type:token-exchange',
      ],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: TOKEN_METHODS,
      token_endpoint_auth_signing_alg_values_supported: ['RS256', 'PS256', 'ES256', 'EdDSA'],
      revocation_endpoint_auth_methods_supported: METHODS,
      revocation_endpoint_auth_signing_alg_values_supported: ['RS256', 'PS256', 'ES256', 'EdDSA'],
      introspection_endpoint_auth_methods_supported: METHODS,
      introspection_endpoint_auth_signing_alg_values_supported: ['RS256', 'PS256', 'ES256', 'EdDSA'],
      scopes_supported: ['openid', 'mcp:tools'],
      authorization_response_iss_parameter_supported: true,
      id_token_signing_alg_values_supported: ['ES256'],
      subject_types_supported: ['public'],
      claims_supported: ['sub'],
      prompt_values_supported: ['none', 'consent'],
      request_parameter_supported: false,
      request_uri_parameter_supported: false,
      client_id_metadata_document_supported: false,
      dpop_signing_alg_values_supported: ['ES256', 'ES384', 'ES512', 'PS256', 'RS256', 'EdDSA', 'Ed25519'],
    });
  });

  it('advertises private_key_jwt (RFC 7523) only when the storage keeps assertion jtis single use', async () => {
    const { onceStore: _, ...withoutReplays } = createMemoryStorage();
    const { server } = await createTestServer({ options: { storage: withoutReplays } });
    const metadata = json(await server.authorizationServerMetadata(get('/'), 'demo'));
    expect(metadata.token_endpoint_auth_methods_supported).toEqual(['none', 'client_secret_basic']);
    expect(metadata).not.toHaveProperty('token_endpoint_auth_signing_alg_values_supported');
    expect(metadata).not.toHaveProperty('introspection_endpoint_auth_signing_alg_values_supported');
  });

  it('advertises DPoP (RFC 9449 §5.1) only when the storage keeps proof jtis single use and it is not turned off', async () => {
    const { onceStore: _, ...withoutReplays } = createMemoryStorage();
    const withoutStore = await createTestServer({ options: { storage: withoutReplays } });
    expect(json(await withoutStore.server.authorizationServerMetadata(get('/'), 'demo'))).not.toHaveProperty(
      'dpop_signing_alg_values_supported',
    );
    const off = await createTestServer({ options: { dpop: false } });
    expect(json(await off.server.authorizationServerMetadata(get('/'), 'demo'))).not.toHaveProperty(
      'dpop_signing_alg_values_supported',
    );
    const chosen = await createTestServer({ options: { dpop: { signingAlgorithms: ['ES256'] } } });
    expect(
      json(await chosen.server.authorizationServerMetadata(get('/'), 'demo'))
        .dpop_signing_alg_values_supported,
    ).toEqual(['ES256']);
  });

  it('advertises CIMD only when a resolver is configured and the tenant allows a document host', async () => {
    const cimdResolver: CimdResolver = {
      resolve: async () => ({ ok: false, error: 'fetch_failed', description: 'x' }),
    };
    const { server } = await createTestServer({
      cimdResolver,
      tenant: { allowedCimdDomains: ['app.example'] },
    });
    expect(
      json(await server.authorizationServerMetadata(get('/'), 'demo')).client_id_metadata_document_supported,
    ).toBe(true);
  });

  it('does not advertise CIMD when no document host is allowed (nothing may be fetched)', async () => {
    const cimdResolver: CimdResolver = {
      resolve: async () => ({ ok: false, error: 'fetch_failed', description: 'x' }),
    };
    for (const tenant of [{}, { allowedCimdDomains: [] }]) {
      const { server } = await createTestServer({ cimdResolver, tenant });
      expect(
        json(await server.authorizationServerMetadata(get('/'), 'demo'))
          .client_id_metadata_document_supported,
      ).toBe(false);
    }
  });

  it('the issuer has no trailing slash even when baseUrl has one', async () => {
    const { server } = await createTestServer({ options: { baseUrl: `${BASE_URL}/` } });
    expect(json(await server.authorizationServerMetadata(get('/'), 'demo')).issuer).toBe(ISSUER);
  });

  it('an unknown tenant is 404', async () => {
    const { server } = await createTestServer();
    expect((await server.authorizationServerMetadata(get('/'), 'other')).status).toBe(404);
  });
});

describe('token endpoint auth methods: advertised only when registration accepts them', () => {
  it('every advertised token endpoint method registers a client for authorization_code (none of them is a trap)', async () => {
    const { server } = await createTestServer();
    const metadata = json(await server.authorizationServerMetadata(get('/'), 'demo'));
    const methods = metadata.token_endpoint_auth_methods_supported as string[];
    expect(methods).not.toContain('client_secret_post');
    for (const method of methods) {
      const body: Record<string, unknown> = {
        redirect_uris: ['https://app.example/callback'],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: method,
      };
      if (method === 'private_key_jwt') body.jwks = { keys: [EC_PUBLIC] };
      const registered = await registerClient(server, body);
      expect(registered.token_endpoint_auth_method).toBe(method);
    }
  });

  it('still lists client_secret_post for /revoke and /introspect, which accept it from every client with a secret', async () => {
    const { server } = await createTestServer();
    const metadata = json(await server.authorizationServerMetadata(get('/'), 'demo'));
    expect(metadata.revocation_endpoint_auth_methods_supported).toContain('client_secret_post');
    expect(metadata.introspection_endpoint_auth_methods_supported).toContain('client_secret_post');
  });

  it('lists client_secret_post for the token endpoint when a tenant accepts it but not Basic', async () => {
    const { server } = await createTestServer({
      tenant: { tokenEndpointAuthMethods: ['none', 'client_secret_post'] },
    });
    const metadata = json(await server.authorizationServerMetadata(get('/'), 'demo'));
    expect(metadata.token_endpoint_auth_methods_supported).toEqual(['none', 'client_secret_post']);
  });
});

describe('request objects (OIDC Core §6, RFC 9101): not supported, and said so', () => {
  it('advertises request_parameter_supported and request_uri_parameter_supported as false (absent reads as true)', async () => {
    const { server } = await createTestServer();
    const metadata = json(await server.authorizationServerMetadata(get('/'), 'demo'));
    expect(metadata.request_parameter_supported).toBe(false);
    expect(metadata.request_uri_parameter_supported).toBe(false);
  });
});

describe('protected resource metadata (RFC 9728)', () => {
  it('names the tenant MCP resource, the issuer and header bearer tokens', async () => {
    const { server } = await createTestServer({
      tenant: { scopesSupported: ['mcp'], resourceScopes: ['mcp'] },
    });
    expect(json(await server.protectedResourceMetadata(get('/'), 'demo'))).toEqual({
      resource: RESOURCE,
      authorization_servers: [ISSUER],
      bearer_methods_supported: ['header'],
      scopes_supported: ['mcp'],
      dpop_signing_alg_values_supported: ['ES256', 'ES384', 'ES512', 'PS256', 'RS256', 'EdDSA', 'Ed25519'],
      dpop_bound_access_tokens_required: false,
    });
  });

  it('advertises the resource scopes (default mcp:tools), and never offline_access', async () => {
    const { server } = await createTestServer({
      tenant: { scopesSupported: ['openid', 'profile', 'mcp:tools', 'offline_access'] },
    });
    expect(json(await server.protectedResourceMetadata(get('/'), 'demo')).scopes_supported).toEqual([
      'openid',
      'profile',
      'mcp:tools',
    ]);
    // The authorization server still offers offline_access in its own metadata.
    expect(json(await server.authorizationServerMetadata(get('/'), 'demo')).scopes_supported).toContain(
      'offline_access',
    );
    const plain = await createTestServer();
    expect(json(await plain.server.protectedResourceMetadata(get('/'), 'demo')).scopes_supported).toEqual([
      'openid',
      'mcp:tools',
    ]);
  });
});

describe('discovery paths', () => {
  it('inserts the well-known segment before the path (RFC 8414 §3.1, RFC 9728 §3.1)', () => {
    expect(wellKnownUrl(ISSUER, 'oauth-authorization-server')).toBe(
      `${BASE_URL}/.well-known/oauth-authorization-server/tenant/demo`,
    );
    expect(wellKnownUrl(RESOURCE, 'oauth-protected-resource')).toBe(
      `${BASE_URL}/.well-known/oauth-protected-resource/tenant/demo/mcp`,
    );
  });
});

describe('JWKS', () => {
  it('publishes the public part of every asymmetric key, with kid, alg and use, and no symmetric key', async () => {
    const t = await createTestServer();
    t.tenant.signingKeys = [
      await generateSigningKey('ES256', 'new'),
      await generateSigningKey('RS256', 'old'),
      await generateSigningKey('HS256', 'sym'),
    ];
    const { keys } = json(await t.server.jwks(get('/'), 'demo')) as { keys: Record<string, unknown>[] };
    expect(keys.map((key) => [key.kid, key.alg, key.use])).toEqual([
      ['new', 'ES256', 'sig'],
      ['old', 'RS256', 'sig'],
    ]);
    for (const key of keys) {
      for (const member of ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k']) expect(key[member]).toBeUndefined();
    }
  });
});
