import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { auth } from '@modelcontextprotocol/sdk/client/auth.js';
import { PrivateKeyJwtProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { exportJWK, generateKeyPair } from 'jose';
import { afterEach, describe, expect, it } from 'vitest';
import type { CimdResolver } from '../../src/cimd/types.js';
import type { HttpHost } from './http-host.js';
import { startHttpHost, submitConsent } from './http-host.js';

const REDIRECT = 'http://127.0.0.1:40123/callback';
const CIMD_URL = 'https://app.example/oauth/client.json';

class MemoryProvider implements OAuthClientProvider {
  information: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  authorizationUrl: URL | undefined;
  clientMetadataUrl?: string;

  constructor(clientMetadataUrl?: string) {
    if (clientMetadataUrl) this.clientMetadataUrl = clientMetadataUrl;
  }
  get redirectUrl(): string {
    return REDIRECT;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'SDK Client',
      redirect_uris: [REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.information;
  }
  saveClientInformation(information: OAuthClientInformationMixed) {
    this.information = information;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

/** Plays the browser: follows the authorization URL with a session, approves consent, returns the code. */
async function approveInBrowser(host: HttpHost, authorizationUrl: URL): Promise<string> {
  const headers = { cookie: 'session=bob' };
  const first = await fetch(authorizationUrl, { redirect: 'manual', headers });
  let target = new URL(String(first.headers.get('location')));
  if (target.pathname.endsWith('/consent')) {
    const decided = await submitConsent(target, headers);
    target = new URL(String(decided.headers.get('location')));
  }
  expect(target.searchParams.get('iss')).toBe(host.issuer);
  return String(target.searchParams.get('code'));
}

let host: HttpHost | undefined;
afterEach(async () => {
  await host?.close();
  host = undefined;
});

describe("the MCP SDK client's auth() flow", () => {
  it('registers through DCR when the server does not advertise CIMD, then gets tokens the resource accepts', async () => {
    host = await startHttpHost({ scopesSupported: ['mcp'] });
    const provider = new MemoryProvider(CIMD_URL);
    const serverUrl = `${host.issuer}/mcp`;
    expect(await auth(provider, { serverUrl })).toBe('REDIRECT');
    expect(provider.information?.client_id).not.toBe(CIMD_URL);
    const code = await approveInBrowser(host, provider.authorizationUrl as URL);
    expect(await auth(provider, { serverUrl, authorizationCode: code })).toBe('AUTHORIZED');
    const response = await fetch(serverUrl, {
      headers: { authorization: `Bearer ${provider.saved?.access_token}` },
    });
    expect(await response.json()).toEqual({ sub: 'bob' });
    // The SDK refreshes with the rotated refresh token on the next auth() call once the access token is gone.
    const refreshToken = provider.saved?.refresh_token;
    provider.saved = {
      access_token: '',
      token_type: 'Bearer',
      ...(refreshToken ? { refresh_token: refreshToken } : {}),
    };
    expect(await auth(provider, { serverUrl })).toBe('AUTHORIZED');
    expect(provider.saved?.refresh_token).not.toBe(refreshToken);
  });

  it('uses the metadata-document URL as client_id when the server advertises CIMD', async () => {
    const cimdResolver: CimdResolver = {
      resolve: async (clientId) => ({
        ok: true,
        cached: false,
        document: {
          client_id: clientId,
          client_name: 'SDK Client',
          redirect_uris: [REDIRECT],
          grant_types: ['authorization_code', 'refresh_token'],
          token_endpoint_auth_method: 'none',
        },
      }),
    };
    host = await startHttpHost(
      { scopesSupported: ['mcp'], allowedCimdDomains: ['app.example'] },
      { cimdResolver },
    );
    const provider = new MemoryProvider(CIMD_URL);
    const serverUrl = `${host.issuer}/mcp`;
    expect(await auth(provider, { serverUrl })).toBe('REDIRECT');
    expect(provider.authorizationUrl?.searchParams.get('client_id')).toBe(CIMD_URL);
    const code = await approveInBrowser(host, provider.authorizationUrl as URL);
    expect(await auth(provider, { serverUrl, authorizationCode: code })).toBe('AUTHORIZED');
    const response = await fetch(serverUrl, {
      headers: { authorization: `Bearer ${provider.saved?.access_token}` },
    });
    expect(response.status).toBe(200);
  });
});

describe("the MCP SDK's PrivateKeyJwtProvider (client_credentials with private_key_jwt, RFC 7523 §2.2)", () => {
  it('gets a token for a provisioned client that signs without a kid (its one key is chosen)', async () => {
    host = await startHttpHost({ scopesSupported: ['mcp'] });
    const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
    const created = await host.server.clients.provision('demo', {
      grantTypes: ['client_credentials'],
      tokenEndpointAuthMethod: 'private_key_jwt',
      jwks: { keys: [{ ...(await exportJWK(publicKey)), kty: 'EC' }] },
      scope: 'mcp',
    });
    const provider = new PrivateKeyJwtProvider({
      clientId: created.clientId,
      privateKey: await exportJWK(privateKey),
      algorithm: 'ES256',
      expectedIssuer: host.issuer,
      scope: 'mcp',
    });
    expect(await auth(provider, { serverUrl: `${host.issuer}/mcp` })).toBe('AUTHORIZED');
    const tokens = provider.tokens();
    expect(tokens?.access_token).toMatch(/^ey/);
    const introspected = await host.server.introspect(
      {
        method: 'POST',
        path: '/tenant/demo/introspect',
        query: '',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          token: String(tokens?.access_token),
          client_id: created.clientId,
        }).toString(),
      },
      'demo',
    );
    // client_id alone does not authenticate a private_key_jwt client, even for introspection.
    expect(introspected.status).toBe(401);
  });
});
