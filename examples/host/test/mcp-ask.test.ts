import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { useAuthorizedHost } from './authorized-host.js';
import { startHost } from './host-process.js';
import { authorizeMcpClient, TestOAuthProvider } from './oauth-client.js';

const hosted = useAuthorizedHost();
const { provider } = hosted;

async function connect(capabilities: Record<string, unknown>): Promise<Client> {
  const client = new Client({ name: 'ask-e2e', version: '1.0.0' }, { capabilities });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${hosted.host.url}/tenant/demo/mcp`), {
      authProvider: provider,
    }),
  );
  return client;
}

describe('a tool that yields { ask: "oauth" } brokers a third-party token through the host', () => {
  it('answers -32042 with a connect URL; following it (connect → provider tenant → callback) lets the retry return a result made with the token', async () => {
    const client = await connect({ elicitation: { url: {} } });
    const error = await client.callTool({ name: 'who_am_i', arguments: {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(-32042);
    // One prefix, added by the client: the server sends the plain message.
    expect((error as McpError).message).toMatch(/^MCP error -32042: [^M]/);
    const [elicitation] = (
      error as McpError & { data: { elicitations: { url: string; elicitationId: string; mode: string }[] } }
    ).data.elicitations;
    expect(elicitation?.mode).toBe('url');
    const connectUrl = new URL(elicitation!.url);
    expect(`${connectUrl.origin}${connectUrl.pathname}`).toBe(`${hosted.host.url}/auth/oauth/connect`);
    expect(connectUrl.search).not.toMatch(/token/i);

    // The browser leg: the connect step sends the user to the provider tenant, which (first-party, single
    // user) sends them straight back to the callback with a code.
    const toProvider = await fetch(connectUrl, { redirect: 'manual' });
    expect(toProvider.status).toBe(302);
    const authorize = new URL(toProvider.headers.get('location')!);
    expect(`${authorize.origin}${authorize.pathname}`).toBe(`${hosted.host.url}/tenant/provider/authorize`);
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
    const toCallback = await fetch(authorize, { redirect: 'manual' });
    const callback = new URL(toCallback.headers.get('location')!);
    expect(`${callback.origin}${callback.pathname}`).toBe(`${hosted.host.url}/auth/oauth/callback`);
    const page = await fetch(callback);
    expect(page.status).toBe(200);

    const replay = await fetch(callback);
    expect(replay.status).toBeGreaterThanOrEqual(400);
    const result = await client.callTool({ name: 'who_am_i', arguments: {} });
    const text = (result.content as { text: string }[])[0]!.text;
    expect(text).toContain(`Connected to ${hosted.host.url}/tenant/provider as owner`);
    await client.close();
  });

  it('returns the token at once from the stored grant, without a new elicitation', async () => {
    const client = await connect({ elicitation: { url: {} } });
    const result = await client.callTool({ name: 'who_am_i', arguments: {} });
    expect((result.content as { text: string }[])[0]!.text).toContain('as owner');
    await client.close();
  });

  it('gives a client that did not declare URL elicitation the link as tool text', async () => {
    const fresh = await startHost();
    try {
      const other = new TestOAuthProvider('http://127.0.0.1:1/callback');
      const url = new URL(`${fresh.url}/tenant/demo/mcp`);
      await authorizeMcpClient(url, other);
      const client = new Client({ name: 'no-elicitation', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(url, { authProvider: other }));
      const result = await client.callTool({ name: 'who_am_i', arguments: {} });
      const text = (result.content as { text: string }[])[0]!.text;
      expect(text).toContain(`${fresh.url}/auth/oauth/connect`);
      await client.close();
    } finally {
      await fresh.stop({ removeData: true });
    }
  });
});
