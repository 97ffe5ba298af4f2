import type { IncomingMessage, RequestListener } from 'node:http';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { AuthInfo } from '@modelcontextprotocol/server';
import type { createMcpRequestGate } from '../src/sdk-v1.js';

/**
 * The README recipe for hosts on SDK v1, as a `node:http` listener: Keyhold's gate first (a refusal answered as
 * the gate says, a fresh DPoP nonce passed on as `DPoP-Nonce`), then a v1 server and stateless transport built
 * per request. The gate is read through `gate()` so a test can create it once the listener has its URL.
 */
export function v1GatedHost(
  gate: () => ReturnType<typeof createMcpRequestGate>,
  buildServer: () => McpServer,
): RequestListener {
  return async (req: IncomingMessage & { auth?: AuthInfo }, res) => {
    const outcome = await gate().check(req);
    if (!outcome.ok) {
      res.writeHead(outcome.status, outcome.headers).end(outcome.body);
      return;
    }
    if (req.method !== 'POST') {
      // Stateless serving has no standalone SSE stream and no session to end.
      res.writeHead(405, { allow: 'POST', 'content-type': 'application/json' }).end(
        JSON.stringify({
          jsonrpc: '2.0',
          error: { code: -32000, message: 'Method not allowed.' },
          id: null,
        }),
      );
      return;
    }
    if (outcome.dpopNonce !== undefined) res.setHeader('dpop-nonce', outcome.dpopNonce);
    req.auth = outcome.authInfo;
    const mcp = buildServer();
    const transport = new StreamableHTTPServerTransport({}); // no sessionIdGenerator: stateless
    res.on('close', () => {
      void transport.close();
      void mcp.close();
    });
    await mcp.connect(transport);
    await transport.handleRequest(req, res);
  };
}
