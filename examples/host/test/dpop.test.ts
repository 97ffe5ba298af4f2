import { Client, DpopSession, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HostProcess, startHost } from './host-process.js';
import { approveInBrowser, TestOAuthProvider } from './oauth-client.js';

/** The e2e provider with a DPoP session, as the SDK v2 client asks for one through `dpop()`. */
class DpopOAuthProvider extends TestOAuthProvider {
  readonly session: Promise<DpopSession> = DpopSession.create({ alg: 'ES256' });
  dpop(): Promise<DpopSession> {
    return this.session;
  }
}

let host: HostProcess;
let mcpUrl: URL;

beforeAll(async () => {
  host = await startHost();
  mcpUrl = new URL(`${host.url}/tenant/demo/mcp`);
});
afterAll(async () => {
  await host?.stop({ removeData: true });
});

describe('DPoP out of the box: the SDK v2 client with a DpopSession against the example host', () => {
  it('advertises DPoP in both metadata documents', async () => {
    const as = (await (
      await fetch(`${host.url}/.well-known/oauth-authorization-server/tenant/demo`)
    ).json()) as Record<string, unknown>;
    expect(as['dpop_signing_alg_values_supported']).toContain('ES256');
    const prm = (await (
      await fetch(`${host.url}/.well-known/oauth-protected-resource/tenant/demo/mcp`)
    ).json()) as Record<string, unknown>;
    expect(prm['dpop_signing_alg_values_supported']).toContain('ES256');
  });

  it('gets a DPoP-bound token (nonce handshake included) and calls a tool with it; the token as Bearer is refused', async () => {
    const provider = new DpopOAuthProvider('http://127.0.0.1:1/callback');
    const transport = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider as never });
    const first = new Client({ name: 'dpop-e2e', version: '1.0.0' });
    await expect(first.connect(transport)).rejects.toThrow();
    const { code, iss } = await approveInBrowser(provider.authorizationUrl!);
    await transport.finishAuth(code, iss ?? undefined);
    const tokens = provider.tokens()!;
    expect(tokens.token_type.toLowerCase()).toBe('dpop');
    const claims = JSON.parse(Buffer.from(tokens.access_token.split('.')[1]!, 'base64url').toString()) as {
      cnf?: { jkt?: string };
    };
    expect(claims.cnf?.jkt).toBe((await provider.session).thumbprint);

    const client = new Client({ name: 'dpop-e2e', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider as never }));
    const result = await client.callTool({ name: 'list_notes', arguments: {} });
    expect(result.isError, JSON.stringify(result)).not.toBe(true);
    await client.close();

    // RFC 9449 §7.2: a bound token presented as Bearer is refused, with a DPoP challenge beside the Bearer one.
    const downgraded = await fetch(mcpUrl, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${tokens.access_token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    expect(downgraded.status).toBe(401);
    expect(downgraded.headers.get('www-authenticate')).toMatch(/DPoP /);
  });
});
