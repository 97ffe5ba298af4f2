import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { legacyClient, modernClient, startEndpoint, type TestEndpoint, textOf } from './fixtures.js';

let host: TestEndpoint | undefined;
afterEach(async () => {
  await host?.close();
  host = undefined;
});

describe('one definition of the tools serves both eras', () => {
  it('serves a 2026-07-28 client (SDK v2, pinned): discover, list, call', async () => {
    host = await startEndpoint();
    const client = await modernClient(host.url, 'alice-token');
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['echo', 'list_repos']);
    const result = await client.callTool({ name: 'echo', arguments: { text: 'hi' } });
    expect(textOf(result)).toBe('hi (modern, alice)');
    await client.close();
  });

  it('serves a 2025-11-25 client (SDK v1) statelessly: initialize, list, call', async () => {
    host = await startEndpoint();
    const client = await legacyClient(host.url, 'alice-token');
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['echo', 'list_repos']);
    const result = await client.callTool({ name: 'echo', arguments: { text: 'hi' } });
    expect(textOf(result)).toBe('hi (legacy, alice)');
    await client.close();
  });

  it('validates arguments with the tool schema before the handler runs', async () => {
    host = await startEndpoint();
    const client = await modernClient(host.url, 'alice-token');
    const result = await client.callTool({ name: 'echo', arguments: { text: 42 } });
    expect(result.isError).toBe(true);
    await client.close();
  });
});

describe('brokered tokens: 2026-07-28 InputRequiredResult with a sealed requestState', () => {
  it('asks for URL elicitation, and the retry after authorizing returns the result', async () => {
    host = await startEndpoint();
    const opened: string[] = [];
    const client = await modernClient(host.url, 'alice-token', {
      onElicitation: (url) => {
        opened.push(url);
        host?.broker.authorize(url);
      },
    });
    const result = await client.callTool({ name: 'list_repos', arguments: { owner: 'acme' } });
    expect(opened).toHaveLength(1);
    expect(opened[0]).toMatch(/^https:\/\/host\.example\/auth\/oauth\/connect\?elicitation_id=e\d+$/);
    expect(textOf(result)).toBe('repos of acme with token-of-alice');
    await client.close();
  });

  it('tells the broker which client asks, so its events name the application', async () => {
    host = await startEndpoint();
    const client = await modernClient(host.url, 'alice-token', { urlElicitation: false });
    await client.callTool({ name: 'list_repos', arguments: { owner: 'acme' } });
    expect(host.broker.contexts).toEqual([
      { tenantId: expect.any(String), userId: 'alice', toolModuleId: 'github', clientId: 'client-a' },
    ]);
    await client.close();
  });

  it('gives the link as tool text to a client that declared no URL elicitation', async () => {
    host = await startEndpoint();
    const client = await modernClient(host.url, 'alice-token', { urlElicitation: false });
    const result = await client.callTool({ name: 'list_repos', arguments: { owner: 'acme' } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('https://host.example/auth/oauth/connect?elicitation_id=');
    await client.close();
  });
});

describe('brokered tokens: 2025-era -32042 URL elicitation', () => {
  it('throws UrlElicitationRequired with a clean message, and the retry succeeds', async () => {
    host = await startEndpoint();
    const client = await legacyClient(host.url, 'alice-token');
    const error = await client
      .callTool({ name: 'list_repos', arguments: { owner: 'acme' } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    const mcpError = error as McpError;
    expect(mcpError.code).toBe(ErrorCode.UrlElicitationRequired);
    expect(mcpError.message).toBe('MCP error -32042: GitHub authorization is needed');
    const elicitation = (mcpError.data as { elicitations: Record<string, unknown>[] }).elicitations[0]!;
    expect(elicitation).toMatchObject({ mode: 'url', provider: 'github', scopes: ['repo'] });
    host.broker.authorize(String(elicitation['url']));
    const retry = await client.callTool({ name: 'list_repos', arguments: { owner: 'acme' } });
    expect(textOf(retry)).toBe('repos of acme with token-of-alice');
    await client.close();
  });

  it('gives the link as tool text to a 2025 client that declared no URL elicitation', async () => {
    host = await startEndpoint();
    const client = await legacyClient(host.url, 'alice-token', { urlElicitation: false });
    const result = await client.callTool({ name: 'list_repos', arguments: { owner: 'acme' } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('elicitation_id=');
    await client.close();
  });
});
