import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import {
  ElicitationCompleteNotificationSchema,
  ErrorCode,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { OAuthAsk, TokenBroker } from '../../src/index.js';
import { elicitationToolResponse, mcpSessionFromServer } from '../../src/index.js';
import {
  ACME_TOKEN,
  authorizeInBrowser,
  makeHarness,
  mockTokenEndpoint,
  tokenResponse,
} from '../fixtures.js';

const server = setupServer();
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

/** A tool module method that needs the user's Acme token. */
function* listFiles(): Generator<OAuthAsk, string, string> {
  const token = yield {
    ask: 'oauth',
    provider: 'acme',
    scopes: ['read'],
    message: 'Connect Acme to list files',
  };
  return `files listed with ${token}`;
}

async function connectPair(broker: TokenBroker, capabilities: Record<string, unknown>) {
  const mcpServer = new McpServer({ name: 'host', version: '1.0.0' });
  mcpServer.registerTool(
    'list_files',
    { description: 'Lists Acme files' },
    async (extra): Promise<CallToolResult> => {
      const context = {
        tenantId: 'tenant-a',
        userId: 'user-1',
        toolModuleId: 'files',
        session: mcpSessionFromServer(mcpServer.server, extra.sessionId),
      };
      try {
        const text = await broker.runWithAsks(listFiles, context);
        return { content: [{ type: 'text', text }] };
      } catch (error) {
        return elicitationToolResponse(error, context.session);
      }
    },
  );
  const client = new Client({ name: 'test-client', version: '1.0.0' }, { capabilities });
  const completions: string[] = [];
  client.setNotificationHandler(ElicitationCompleteNotificationSchema, (notification) => {
    completions.push(notification.params.elicitationId);
  });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await Promise.all([mcpServer.connect(serverTransport), client.connect(clientTransport)]);
  return { client, mcpServer, completions };
}

describe('MCP elicitation: a tool yields an ask through a real McpServer and SDK Client', () => {
  it('the client gets -32042 with the URL; after the callback the retried call succeeds with the token', async () => {
    const { broker } = makeHarness();
    const { client, completions } = await connectPair(broker, { elicitation: { url: {} } });

    const failure = await client.callTool({ name: 'list_files' }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(McpError);
    const error = failure as McpError;
    expect(error.code).toBe(ErrorCode.UrlElicitationRequired);
    expect(error.code).toBe(-32042);
    const data = error.data as {
      elicitations: { mode: string; elicitationId: string; url: string; message: string }[];
    };
    expect(data.elicitations).toHaveLength(1);
    const [elicitation] = data.elicitations;
    expect(elicitation).toMatchObject({ mode: 'url', message: 'Connect Acme to list files' });
    expect(elicitation!.url).toBe(
      `https://host.example/auth/oauth/connect?elicitation_id=${elicitation!.elicitationId}`,
    );

    const { callback } = await authorizeInBrowser(broker, elicitation!.url);
    mockTokenEndpoint(server, ACME_TOKEN, () =>
      tokenResponse({ access_token: 'acme-token', expires_in: 3600 }),
    );
    expect((await broker.callback(callback)).status).toBe(200);
    await expect.poll(() => completions).toEqual([elicitation!.elicitationId]);

    const retried = await client.callTool({ name: 'list_files' });
    expect(retried.isError).toBeFalsy();
    expect(retried.content).toEqual([{ type: 'text', text: 'files listed with acme-token' }]);
    await client.close();
  });

  it('a client without elicitation.url gets a tool result carrying the link as text', async () => {
    const { broker } = makeHarness();
    const { client } = await connectPair(broker, {});
    const result = await client.callTool({ name: 'list_files' });
    expect(result.isError).toBe(true);
    const content = result.content as { type: string; text: string }[];
    expect(content[0]?.type).toBe('text');
    const url = content[0]?.text.match(
      /https:\/\/host\.example\/auth\/oauth\/connect\?elicitation_id=[\w-]+/,
    )?.[0];
    expect(url).toBeDefined();
    expect(content[0]?.text).toContain('Connect Acme to list files');

    // The link in the text works like the elicitation URL; no completion notification is attempted.
    const { callback } = await authorizeInBrowser(broker, url!);
    mockTokenEndpoint(server, ACME_TOKEN, () => tokenResponse({ access_token: 'acme-token' }));
    expect((await broker.callback(callback)).status).toBe(200);
    const retried = await client.callTool({ name: 'list_files' });
    expect(retried.content).toEqual([{ type: 'text', text: 'files listed with acme-token' }]);
    await client.close();
  });
});
