import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HostProcess, startHost } from './host-process.js';
import { approveInBrowser, TestOAuthProvider } from './oauth-client.js';

let host: HostProcess;
beforeAll(async () => {
  host = await startHost({ KEYHOLD_ACCESS_TOKEN_TTL_SECONDS: '2' });
});
afterAll(async () => {
  await host?.stop({ removeData: true });
});

function textOf(result: Awaited<ReturnType<Client['callTool']>>): string {
  const first = (result.content as { type: string; text?: string }[])[0];
  return first?.text ?? '';
}

describe('a real MCP client (SDK Client + its OAuth provider) against the host', () => {
  const provider = new TestOAuthProvider('http://127.0.0.1:1/callback');
  const mcpUrl = (): URL => new URL(`${host.url}/tenant/demo/mcp`);

  it('is sent from the 401 challenge through discovery and dynamic registration to the authorization URL', async () => {
    const client = new Client({ name: 'e2e', version: '1.0.0' });
    await expect(
      client.connect(new StreamableHTTPClientTransport(mcpUrl(), { authProvider: provider })),
    ).rejects.toThrow(UnauthorizedError);
    expect(provider.information?.client_id).toBeTypeOf('string'); // registered through DCR
    const url = provider.authorizationUrl!;
    expect(`${url.origin}${url.pathname}`).toBe(`${host.url}/tenant/demo/authorize`);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('resource')).toBe(`${host.url}/tenant/demo/mcp`);
  });

  it('approves consent, exchanges the code, and lists and calls tools with the access token', async () => {
    const { code, iss, sawConsent } = await approveInBrowser(provider.authorizationUrl!);
    expect(sawConsent).toBe(true);
    expect(iss).toBe(`${host.url}/tenant/demo`);
    const transport = new StreamableHTTPClientTransport(mcpUrl(), { authProvider: provider });
    await transport.finishAuth(code);
    expect(provider.savedTokens?.refresh_token).toBeTypeOf('string');

    const client = new Client({ name: 'e2e', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(mcpUrl(), { authProvider: provider }));
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['add_note', 'list_notes', 'recent_pushes', 'who_am_i']);
    expect(textOf(await client.callTool({ name: 'add_note', arguments: { text: 'from e2e' } }))).toContain(
      'Saved',
    );
    expect(textOf(await client.callTool({ name: 'list_notes', arguments: {} }))).toContain('from e2e');
    await client.close();
  });

  it('refreshes (with rotation) when the access token has expired and keeps working', async () => {
    const before = provider.savedTokens!;
    await new Promise((resolve) => setTimeout(resolve, 2_500)); // the host runs with 2-second access tokens
    const client = new Client({ name: 'e2e', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(mcpUrl(), { authProvider: provider }));
    expect((await client.listTools()).tools.length).toBe(4);
    expect(provider.savedTokens!.access_token).not.toBe(before.access_token);
    expect(provider.savedTokens!.refresh_token).not.toBe(before.refresh_token);
    await client.close();
  });

  it('answers a request with a bad token with 401 and the WWW-Authenticate challenge', async () => {
    const response = await fetch(mcpUrl(), {
      method: 'POST',
      headers: {
        authorization: 'Bearer not-a-token',
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(
      /^Bearer realm="demo", resource_metadata="http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource\/tenant\/demo\/mcp", error="invalid_token"/,
    );
  });
});
