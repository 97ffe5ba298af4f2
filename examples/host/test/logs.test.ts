import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HostProcess, startHost } from './host-process.js';
import { authorizeMcpClient, TestOAuthProvider } from './oauth-client.js';

let host: HostProcess;
beforeAll(async () => {
  host = await startHost({ LOG_LEVEL: 'debug' });
});
afterAll(async () => {
  await host?.stop({ removeData: true });
});

/** The host's pino lines as objects. */
function logLines(): Record<string, unknown>[] {
  return host
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('logs at debug tell the story of a whole OAuth and MCP flow, in one field vocabulary', () => {
  it('records registration, the code, the token, each MCP request and a refused token, never a secret', async () => {
    const provider = new TestOAuthProvider('http://127.0.0.1:1/callback');
    const mcpUrl = new URL(`${host.url}/tenant/demo/mcp`);
    await authorizeMcpClient(mcpUrl, provider);
    const client = new Client({ name: 'logs', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }));
    await client.listTools();
    await client.close();
    await fetch(mcpUrl, {
      method: 'POST',
      headers: {
        authorization: 'Bearer not-a-token',
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    const lines = logLines();
    const messages = lines.map((line) => String(line['msg'] ?? ''));
    expect(messages).toContain('authorization code issued');
    const events = lines.map((line) => line['event']);
    expect(events).toEqual(expect.arrayContaining(['token_issued', 'mcp_request', 'authentication_failed']));
    expect(lines.find((line) => line['event'] === 'token_issued')).toMatchObject({ tenant: 'demo' });
    // One vocabulary: the tenant is `tenant` everywhere, never `tenantId`.
    expect(lines.filter((line) => 'tenantId' in line)).toEqual([]);
    const text = host.output();
    expect(text).not.toContain(provider.tokens()?.access_token ?? 'no token');
    expect(text).not.toContain('not-a-token');
  });
});
