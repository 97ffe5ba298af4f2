import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyhold } from './cli.js';
import { type HostProcess, hostDir, startHost } from './host-process.js';
import { approveInBrowser, TestOAuthProvider } from './oauth-client.js';

let host: HostProcess;
let mcpUrl: URL;
const provider = new TestOAuthProvider('http://127.0.0.1:1/callback');

beforeAll(async () => {
  host = await startHost();
  mcpUrl = new URL(`${host.url}/tenant/demo/mcp`);
});
afterAll(async () => {
  await host?.stop({ removeData: true });
});

/** A 2026-07-28 client (SDK v2, pinned) using the provider's tokens, declaring URL elicitation. */
async function modernClient(
  options: { headers?: Record<string, string>; onUrl?: (url: string) => Promise<void> } = {},
) {
  const client = new Client(
    { name: 'modern-e2e', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } }, capabilities: { elicitation: { url: {} } } },
  );
  client.setRequestHandler('elicitation/create', async (request) => {
    const url = (request.params as { url?: string }).url;
    if (url && options.onUrl) await options.onUrl(url);
    return { action: 'accept' };
  });
  await client.connect(
    new StreamableHTTPClientTransport(mcpUrl, {
      authProvider: provider as never,
      ...(options.headers ? { requestInit: { headers: options.headers } } : {}),
    }),
  );
  return client;
}

/** What the person does with the login link: connect → provider tenant (first party) → callback. */
async function authorizeInBrowser(connectUrl: string): Promise<void> {
  const toProvider = await fetch(connectUrl, { redirect: 'manual' });
  const authorize = new URL(toProvider.headers.get('location') ?? '');
  const toCallback = await fetch(authorize, { redirect: 'manual' });
  const page = await fetch(new URL(toCallback.headers.get('location') ?? ''));
  expect(page.status).toBe(200);
}

describe('the SDK v2 client in the 2026-07-28 era against the example host', () => {
  it('completes the OAuth flow itself (401 → discovery → registration → consent → token)', async () => {
    const transport = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider as never });
    const first = new Client(
      { name: 'modern-e2e', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await expect(first.connect(transport)).rejects.toThrow();
    expect(provider.authorizationUrl?.pathname).toBe('/tenant/demo/authorize');
    const { code, iss } = await approveInBrowser(provider.authorizationUrl!);
    // RFC 9207: the v2 client checks the issuer of the authorization response.
    expect(iss).toBe(`${host.url}/tenant/demo`);
    await transport.finishAuth(code, iss ?? undefined);
    expect(provider.tokens()?.access_token).toBeTypeOf('string');
    const client = await modernClient();
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual([
      'add_note',
      'list_notes',
      'recent_pushes',
      'who_am_i',
    ]);
    await client.close();
  });

  it('is narrowed by a claim code made with `keyhold claim`', async () => {
    const created = await keyhold(['claim', '--scope', join(hostDir, 'tools/workspace-a'), '--json'], {
      KEYHOLD_DATA_DIR: host.dataDir,
    });
    const { code } = JSON.parse(created.stdout) as { code: string };
    const client = await modernClient({ headers: { 'Mcp-Claim-Code': code } });
    expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual([
      'add_note',
      'list_notes',
    ]);
    await client.close();
  });

  it('refuses a tampered requestState and a replayed one (before the user has connected the provider)', async () => {
    const client = new Client({ name: 'modern-manual', version: '1.0.0' }, {
      versionNegotiation: { mode: { pin: '2026-07-28' } },
      capabilities: { elicitation: { url: {} } },
      inputRequired: { autoFulfill: false },
    } as never);
    await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider as never }));
    const call = { name: 'who_am_i', arguments: {} };
    const first = (await client.callTool(call, { allowInputRequired: true } as never)) as unknown as {
      resultType: string;
      requestState: string;
    };
    expect(first.resultType).toBe('input_required');
    const retry = (requestState: string, action: string) =>
      client.callTool(
        { ...call, inputResponses: { authorization: { action } }, requestState } as never,
        { allowInputRequired: true } as never,
      );
    const flipped = `${first.requestState.slice(0, -2)}${first.requestState.at(-2) === 'A' ? 'B' : 'A'}${first.requestState.at(-1)}`;
    await expect(retry(flipped, 'decline')).rejects.toThrow(/Invalid or expired requestState/);
    // The genuine state is answered once (the user declined, so the tool did not run) and never again.
    const declined = await retry(first.requestState, 'decline');
    expect(declined.isError).toBe(true);
    expect((declined.content as { text: string }[])[0]!.text).toContain('was not given');
    await expect(retry(first.requestState, 'decline')).rejects.toThrow(/Invalid or expired requestState/);
    await client.close();
  });

  it('runs the brokered tool through its URL elicitation (InputRequiredResult) and the retry', async () => {
    const opened: string[] = [];
    const client = await modernClient({
      onUrl: async (url) => {
        opened.push(url);
        await authorizeInBrowser(url);
      },
    });
    const result = await client.callTool({ name: 'who_am_i', arguments: {} });
    expect(opened).toHaveLength(1);
    expect(new URL(opened[0]!).pathname).toBe('/auth/oauth/connect');
    const text = (result.content as { text: string }[])[0]!.text;
    expect(text).toContain(`Connected to ${host.url}/tenant/provider as owner`);
    // Authorized once: the next call gets the token without asking.
    const again = await client.callTool({ name: 'who_am_i', arguments: {} });
    expect((again.content as { text: string }[])[0]!.text).toContain('as owner');
    expect(opened).toHaveLength(1);
    await client.close();
  });

  it('refuses a foreign Origin with 403', async () => {
    const response = await fetch(mcpUrl, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${provider.tokens()?.access_token}`,
        origin: 'https://rebind.attacker.example',
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(response.status).toBe(403);
  });
});
