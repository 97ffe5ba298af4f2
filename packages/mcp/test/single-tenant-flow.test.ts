import { compose } from '@keyhold/core';
import {
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
import { type AppServer, approveInBrowser, MemoryProvider, startAppServer } from './sdk-flow.js';

const REDIRECT = 'http://127.0.0.1:40123/callback';

// A single-tenant app whose MCP resource is at `/mcp` (not `/tenant/demo/mcp`): clients configured with
// `http://127.0.0.1:<port>/mcp` find everything else from the 401.
let server: AppServer;
let base: string;
beforeAll(async () => {
  server = await startAppServer();
  base = server.base;
  const oauth = createAuthorizationServer({
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
  server.serve(compose(mcp, oauth));
});

afterAll(() => server.close());

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
    const provider = new MemoryProvider(REDIRECT, 'SDK Client');
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
    const provider = new MemoryProvider(REDIRECT, 'SDK Client');
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
