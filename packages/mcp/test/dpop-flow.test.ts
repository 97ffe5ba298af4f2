import { type Area, compose } from '@keyhold/core';
import {
  type AuthorizationServerOptions,
  createMemoryStorage,
  generateSigningKey,
  type OAuthStorage,
  type SigningKeyConfig,
} from '@keyhold/oauth-core';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMcpEndpoint, type McpEndpoint } from '../src/index.js';
import { notes, textOf } from './fixtures.js';
import {
  type AppServer,
  authorizeWithDpop,
  DpopProvider,
  demoAuthorizationServer,
  startAppServer,
  toolsCallRequest,
} from './sdk-flow.js';

/** One instance of the app: an authorization server and the MCP endpoint at `{base}/mcp`. */
function instance(
  base: string,
  storage: OAuthStorage,
  keys: SigningKeyConfig[],
  dpop: AuthorizationServerOptions['dpop'],
): { app: Area; mcp: McpEndpoint } {
  const oauth = demoAuthorizationServer(base, storage, keys, dpop);
  const mcp = createMcpEndpoint({
    resource: oauth.protectedResource('demo', { url: `${base}/mcp` }),
    serverInfo: { name: 'dpop-app', version: '1.0.0' },
    toolModules: [notes],
  });
  return { app: compose(mcp, oauth), mcp };
}

// Two instances of one deployment behind one public URL: they share the storage (and its spend-once store)
// and the signing keys. The first serves HTTP; the second is called in-process with the same URLs.
function suite(name: string, dpop: AuthorizationServerOptions['dpop']): void {
  describe(name, () => {
    let server: AppServer;
    let base: string;
    let second: McpEndpoint;
    beforeAll(async () => {
      server = await startAppServer();
      base = server.base;
      const storage = createMemoryStorage();
      const keys = [await generateSigningKey('ES256', 'k1')];
      server.serve(instance(base, storage, keys, dpop).app);
      second = instance(base, storage, keys, dpop).mcp;
    });

    afterAll(() => server.close());

    const toolsCall = (authorization: string, dpop?: string): Request =>
      toolsCallRequest(`${base}/mcp`, authorization, dpop);

    describe('the MCP SDK v2 client with a DpopSession, end to end', () => {
      const provider = new DpopProvider();

      it('gets a DPoP-bound token through the whole flow and calls a tool with it', async () => {
        const url = new URL(`${base}/mcp`);
        await authorizeWithDpop(provider, url);
        const client = new Client({ name: 'v2', version: '1.0.0' });
        await client.connect(new StreamableHTTPClientTransport(url, { authProvider: provider as never }));
        const result = await client.callTool({ name: 'echo', arguments: { text: 'hello' } });
        expect(textOf(result)).toContain('hello');
        expect(textOf(result)).toContain('owner');
        // With nonces required the servers handed the session one (the SDK retried with it); without, none.
        expect((await provider.session).nonceFor(base) !== undefined).toBe(dpop !== undefined);
        await client.close();
      });

      it('refuses the same token presented as Bearer (RFC 9449 §7.2)', async () => {
        const token = String(provider.saved?.access_token);
        const response = await fetch(toolsCall(`Bearer ${token}`));
        expect(response.status).toBe(401);
        expect(response.headers.get('www-authenticate')).toMatch(/^Bearer .*error="invalid_token"/);
      });

      it('refuses a proof replayed on a second instance that shares the spend-once store', async () => {
        const token = String(provider.saved?.access_token);
        const session = await provider.session;
        const proof = await session.buildProof({ htm: 'POST', htu: `${base}/mcp`, accessToken: token });
        const accepted = await fetch(toolsCall(`DPoP ${token}`, proof));
        expect(accepted.status).toBe(200);
        const replayed = await second.fetch(toolsCall(`DPoP ${token}`, proof));
        expect(replayed.status).toBe(401);
        expect(replayed.headers.get('www-authenticate')).toMatch(/DPoP .*error="invalid_dpop_proof"/);
        // A fresh proof is served by the second instance too.
        const fresh = await session.buildProof({ htm: 'POST', htu: `${base}/mcp`, accessToken: token });
        expect((await second.fetch(toolsCall(`DPoP ${token}`, fresh))).status).toBe(200);
      });
    });
  });
}

suite('without server nonces', undefined);
// The SDK keeps one nonce per origin; the authorization server and the resource share one here, and each
// answers the other's nonce with use_dpop_nonce (RFC 9449 §9): the SDK's retries must carry the flow through.
suite('with server nonces required', { nonceSecret: 'nonce-secret-shared-by-both-instances!!' });
