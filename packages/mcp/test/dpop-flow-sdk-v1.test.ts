import {
  type AuthorizationServerOptions,
  createMemoryStorage,
  generateSigningKey,
  type OAuthStorage,
  type SigningKeyConfig,
} from '@keyhold/oauth-core';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { createMcpRequestGate } from '../src/sdk-v1.js';
import { textOf } from './fixtures.js';
import {
  type AppServer,
  authorizeWithDpop,
  DpopProvider,
  demoAuthorizationServer,
  startAppServer,
  toolsCallRequest,
} from './sdk-flow.js';
import { v1GatedHost } from './v1-host.js';

type Gate = ReturnType<typeof createMcpRequestGate>;

/** A v1 server with one tool that answers with the verified user: built per request (stateless transport). */
function buildV1Server(): McpServer {
  const mcp = new McpServer({ name: 'v1-dpop-host', version: '1.0.0' });
  mcp.registerTool('echo', { inputSchema: { text: z.string() } }, async ({ text }, extra) => ({
    content: [{ type: 'text', text: `${text} (v1, ${String(extra.authInfo?.extra?.['sub'])})` }],
  }));
  return mcp;
}

/** One instance of the host: its authorization server, and the gate in front of its v1 server at `/mcp`. */
function instance(
  base: string,
  storage: OAuthStorage,
  keys: SigningKeyConfig[],
  dpop: AuthorizationServerOptions['dpop'],
) {
  const oauth = demoAuthorizationServer(base, storage, keys, dpop);
  // The README recipe's resource: the tenant's default URL, whose RFC 9728 metadata the authorization
  // server serves (the gate checks requests only).
  const resource = oauth.protectedResource('demo');
  return { oauth, gate: createMcpRequestGate({ resource }), url: resource.url };
}

// Two instances of one deployment share the storage (and its spend-once store) and the signing keys. The
// first serves HTTP (the v1 server at the resource URL, the authorization server elsewhere); the second's gate is asked
// in-process with the same URLs.
function suite(name: string, dpop: AuthorizationServerOptions['dpop']): void {
  describe(name, () => {
    let server: AppServer;
    let base: string;
    /** The resource URL, where the v1 server is mounted. */
    let mcpUrl: string;
    let second: Gate;
    beforeAll(async () => {
      server = await startAppServer();
      base = server.base;
      const storage = createMemoryStorage();
      const keys = [await generateSigningKey('ES256', 'k1')];
      const first = instance(base, storage, keys, dpop);
      mcpUrl = first.url;
      server.serve(first.oauth, { [new URL(mcpUrl).pathname]: v1GatedHost(() => first.gate, buildV1Server) });
      second = instance(base, storage, keys, dpop).gate;
    });

    afterAll(() => server.close());

    describe('the MCP SDK v2 client with a DpopSession, end to end, against an SDK v1 server behind the gate', () => {
      const provider = new DpopProvider();

      it('gets a DPoP-bound token through the whole flow and calls a v1 tool with it', async () => {
        const url = new URL(mcpUrl);
        await authorizeWithDpop(provider, url);
        const client = new Client({ name: 'v2', version: '1.0.0' });
        await client.connect(new StreamableHTTPClientTransport(url, { authProvider: provider as never }));
        const result = await client.callTool({ name: 'echo', arguments: { text: 'hello' } });
        expect(textOf(result)).toBe('hello (v1, owner)');
        // With nonces required the gate handed the session one (the SDK retried with it); without, none.
        expect((await provider.session).nonceFor(base) !== undefined).toBe(dpop !== undefined);
        await client.close();
      });

      it('refuses the same token presented as Bearer (RFC 9449 §7.2)', async () => {
        const token = String(provider.saved?.access_token);
        const response = await fetch(toolsCallRequest(mcpUrl, `Bearer ${token}`));
        expect(response.status).toBe(401);
        expect(response.headers.get('www-authenticate')).toMatch(/^Bearer .*error="invalid_token"/);
      });

      it('refuses a proof replayed at a second gate that shares the spend-once store', async () => {
        const token = String(provider.saved?.access_token);
        const session = await provider.session;
        const proof = await session.buildProof({ htm: 'POST', htu: mcpUrl, accessToken: token });
        const accepted = await fetch(toolsCallRequest(mcpUrl, `DPoP ${token}`, proof));
        expect(accepted.status).toBe(200);
        expect(await accepted.text()).toContain('x (v1, owner)');
        const replayed = await second.check(toolsCallRequest(mcpUrl, `DPoP ${token}`, proof));
        expect(replayed.ok).toBe(false);
        expect(!replayed.ok && replayed.status).toBe(401);
        expect(!replayed.ok && replayed.headers['www-authenticate']).toMatch(
          /DPoP .*error="invalid_dpop_proof"/,
        );
        // A fresh proof passes the second gate too.
        const fresh = await session.buildProof({ htm: 'POST', htu: mcpUrl, accessToken: token });
        expect((await second.check(toolsCallRequest(mcpUrl, `DPoP ${token}`, fresh))).ok).toBe(true);
      });
    });
  });
}

suite('without server nonces', undefined);
// The SDK keeps one nonce per origin; the authorization server and the gate share one here, and each answers
// the other's nonce with use_dpop_nonce (RFC 9449 §9): the SDK's retries must carry the flow through.
suite('with server nonces required', { nonceSecret: 'nonce-secret-shared-by-both-instances!!' });
