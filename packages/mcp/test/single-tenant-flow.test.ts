import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { type Area, compose } from '@keyhold/core';
import {
  type AuthorizationServer,
  createAuthorizationServer,
  createMemoryStorage,
  createStaticTenants,
  generateSigningKey,
} from '@keyhold/oauth-core';
import {
  Client,
  StreamableHTTPClientTransport,
  UnauthorizedError as UnauthorizedErrorV2,
} from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMcpEndpoint } from '../src/index.js';
import { notes, textOf } from './fixtures.js';

const REDIRECT = 'http://127.0.0.1:40123/callback';

/** An OAuth client provider (the shape both SDK eras take) that keeps everything in memory. */
class MemoryProvider {
  information: unknown;
  saved: { access_token: string } | undefined;
  verifier = '';
  authorizationUrl: URL | undefined;
  get redirectUrl(): string {
    return REDIRECT;
  }
  get clientMetadata() {
    return {
      client_name: 'SDK Client',
      redirect_uris: [REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.information as never;
  }
  saveClientInformation(information: unknown) {
    this.information = information;
  }
  tokens() {
    return this.saved as never;
  }
  saveTokens(tokens: { access_token: string }) {
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

/** Plays the user's browser: follows the authorization URL, approves consent, returns the redirect. */
async function approveInBrowser(authorizationUrl: URL): Promise<URL> {
  const first = await fetch(authorizationUrl, { redirect: 'manual' });
  let target = new URL(String(first.headers.get('location')), authorizationUrl);
  if (target.pathname.endsWith('/consent')) {
    const page = await fetch(target);
    const cookie = (page.headers.get('set-cookie') ?? '').split(';', 1)[0] ?? '';
    const csrfToken = /name="csrf_token" value="([^"]+)"/.exec(await page.text())?.[1] ?? '';
    const decided = await fetch(new URL(target.pathname, target), {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        req: String(target.searchParams.get('req')),
        decision: 'approve',
        csrf_token: csrfToken,
      }).toString(),
    });
    target = new URL(String(decided.headers.get('location')));
  }
  return target;
}

// A single-tenant app whose MCP resource is at `/mcp` (not `/tenant/demo/mcp`): clients configured with
// `http://127.0.0.1:<port>/mcp` find everything else from the 401.
let server: Server;
let base: string;
let oauth: AuthorizationServer;
beforeAll(async () => {
  let app: Area | undefined;
  server = createServer(
    getRequestListener((request) => app?.fetch(request) ?? new Response(null, { status: 503 })),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  oauth = createAuthorizationServer({
    baseUrl: base,
    tenants: createStaticTenants({
      demo: { signingKeys: [await generateSigningKey('ES256', 'k1')], singleUserId: 'owner' },
    }),
    storage: createMemoryStorage(),
    singleUserMode: true,
  });
  const mcp = createMcpEndpoint({
    resource: oauth.protectedResource('demo', { url: `${base}/mcp` }),
    serverInfo: { name: 'single-tenant-app', version: '1.0.0' },
    toolModules: [notes],
  });
  app = compose(mcp, oauth);
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('a resource at /mcp on a single-tenant app completes the whole flow with the MCP SDK clients of both eras', () => {
  it('serves its RFC 9728 metadata where clients look for it, naming the tenant as authorization server', async () => {
    const response = await fetch(`${base}/.well-known/oauth-protected-resource/mcp`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      resource: `${base}/mcp`,
      authorization_servers: [`${base}/tenant/demo`],
      bearer_methods_supported: ['header'],
      scopes_supported: ['openid', 'mcp:tools'],
      dpop_signing_alg_values_supported: ['ES256', 'ES384', 'ES512', 'PS256', 'RS256', 'EdDSA', 'Ed25519'],
      dpop_bound_access_tokens_required: false,
    });
    const challenge = (await fetch(`${base}/mcp`, { method: 'POST' })).headers.get('www-authenticate');
    expect(challenge).toContain(`resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`);
  });

  it('SDK v2: 401 → metadata → registration → code flow with PKCE → tools/call', async () => {
    const provider = new MemoryProvider();
    const url = new URL(`${base}/mcp`);
    const first = new StreamableHTTPClientTransport(url, { authProvider: provider as never });
    await expect(new Client({ name: 'v2', version: '1.0.0' }).connect(first)).rejects.toBeInstanceOf(
      UnauthorizedErrorV2,
    );
    expect(provider.authorizationUrl?.searchParams.get('code_challenge_method')).toBe('S256');
    expect(provider.authorizationUrl?.searchParams.get('resource')).toBe(`${base}/mcp`);
    const redirect = await approveInBrowser(provider.authorizationUrl as URL);
    await first.finishAuth(redirect.searchParams);
    const client = new Client({ name: 'v2', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(url, { authProvider: provider as never }));
    const result = await client.callTool({ name: 'echo', arguments: { text: 'hello' } });
    expect(textOf(result)).toContain('hello');
    expect(textOf(result)).toContain('owner');
    await client.close();
  });

  it('SDK v1: 401 → metadata → registration → code flow with PKCE → tools/call', async () => {
    const provider = new MemoryProvider();
    const url = new URL(`${base}/mcp`);
    const first = new TransportV1(url, { authProvider: provider as never });
    await expect(new ClientV1({ name: 'v1', version: '1.0.0' }).connect(first)).rejects.toThrow(
      /Unauthorized/i,
    );
    const redirect = await approveInBrowser(provider.authorizationUrl as URL);
    await first.finishAuth(String(redirect.searchParams.get('code')));
    const client = new ClientV1({ name: 'v1', version: '1.0.0' });
    await client.connect(new TransportV1(url, { authProvider: provider as never }));
    const result = await client.callTool({ name: 'echo', arguments: { text: 'hello' } });
    expect(textOf(result)).toContain('hello (legacy, owner)');
    await client.close();
  });
});
