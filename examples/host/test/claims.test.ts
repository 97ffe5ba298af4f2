import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { useAuthorizedHost } from './authorized-host.js';
import { keyhold } from './cli.js';
import { hostDir } from './host-process.js';

const hosted = useAuthorizedHost();
const { provider } = hosted;

async function connect(headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'claims-e2e', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${hosted.host.url}/tenant/demo/mcp`), {
      authProvider: provider,
      requestInit: { headers },
    }),
  );
  return client;
}

const names = async (client: Client): Promise<string[]> =>
  (await client.listTools()).tools.map((t) => t.name).sort();

describe('claim codes narrow an MCP session of the host to one directory of tool modules', () => {
  it('a session without a code sees every module’s tools', async () => {
    const client = await connect();
    expect(await names(client)).toEqual(['add_note', 'list_notes', 'recent_pushes', 'who_am_i']);
    await client.close();
  });

  it('a code made by `keyhold claim` (a real CLI process on the host’s data directory) shows one directory', async () => {
    const created = await keyhold(
      ['claim', '--scope', join(hostDir, 'tools/workspace-a'), '--label', 'e2e', '--json'],
      {
        KEYHOLD_DATA_DIR: hosted.host.dataDir,
      },
    );
    expect(created.code).toBe(0);
    const { code } = JSON.parse(created.stdout) as { code: string };
    const client = await connect({ 'Mcp-Claim-Code': code });
    expect(await names(client)).toEqual(['add_note', 'list_notes']);
    const outside = await client
      .callTool({ name: 'recent_pushes', arguments: {} })
      .catch((error: Error) => error);
    expect(outside).toBeInstanceOf(Error);
    expect(String(outside)).toMatch(/Tool recent_pushes not found/);

    // Revoked from another process: the client's very next request counts it, and (the specification's
    // default, which the host keeps) a code that is no longer valid is served like no code.
    const revoked = await keyhold(['claim', 'revoke', code.toLowerCase()], {
      KEYHOLD_DATA_DIR: hosted.host.dataDir,
    });
    expect(revoked.code).toBe(0);
    expect(await names(client)).toEqual(['add_note', 'list_notes', 'recent_pushes', 'who_am_i']);
    await client.close();
  });

  it('serves a code that is not valid unscoped (200, every tool module), as the specification says', async () => {
    const client = await connect({ 'Mcp-Claim-Code': 'ABC-DEF' });
    expect(await names(client)).toEqual(['add_note', 'list_notes', 'recent_pushes', 'who_am_i']);
    await client.close();
    const response = await fetch(`${hosted.host.url}/tenant/demo/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${(await provider.tokens())?.access_token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-claim-code': 'ABC-DEF',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(response.status).toBe(200);
  });
});
