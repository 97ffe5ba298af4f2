import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { type NodeIncomingMessageLike, toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import {
  checkMcpToolCall,
  LIST_NOTES,
  MCP_CLIENT_INFO,
  MCP_PROTOCOL_VERSION,
  mcpToolCall,
} from '../src/mcp.js';

// In-process stand-ins for the two targets: the MCP SDK v2 on node:http, serving a `list_notes` tool as the
// test says, recording every request it receives. No load is run here.

interface Recorded {
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

interface ToolServer {
  readonly url: string;
  readonly recorded: Recorded[];
}

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

async function listen(server: Server): Promise<string> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function serveTool(
  tool: { description: string; text: string } = { description: LIST_NOTES.description, text: '[]' },
): Promise<ToolServer> {
  const handler = createMcpHandler(() => {
    const server = new McpServer({ name: 'test', version: '1.0.0' });
    server.registerTool(LIST_NOTES.name, { description: tool.description }, async () => ({
      content: [{ type: 'text', text: tool.text }],
    }));
    return server;
  });
  const serve = toNodeHandler(handler);
  const recorded: Recorded[] = [];
  const url = await listen(
    createServer(async (request, response) => {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      const body = Buffer.concat(chunks).toString('utf8');
      recorded.push({ headers: request.headers, body });
      await serve(request as NodeIncomingMessageLike, response, JSON.parse(body));
    }),
  );
  return { url, recorded };
}

/** What a real SDK v2 client sends for `tools/call` of `list_notes`, pinned to 2026-07-28. */
async function capturedCall(bearer: string | undefined): Promise<Recorded> {
  const target = await serveTool();
  const client = new Client(MCP_CLIENT_INFO, {
    versionNegotiation: { mode: { pin: MCP_PROTOCOL_VERSION } },
  });
  await client.connect(
    new StreamableHTTPClientTransport(
      new URL(`${target.url}/mcp`),
      bearer === undefined ? {} : { authProvider: { token: async () => bearer } },
    ),
  );
  try {
    await client.callTool({ name: LIST_NOTES.name, arguments: {} });
  } finally {
    await client.close();
  }
  const call = target.recorded.find((request) => request.headers['mcp-method'] === 'tools/call');
  if (call === undefined) throw new Error('the client sent no tools/call');
  return call;
}

/** The headers a client chose, without the connection's and Node fetch's own defaults. */
function clientHeaders(headers: IncomingMessage['headers']): Record<string, unknown> {
  const ignored = ['host', 'connection', 'content-length'];
  const fetchDefaults = ['user-agent', 'accept-language', 'accept-encoding', 'sec-fetch-mode'];
  return Object.fromEntries(
    Object.entries(headers).filter(([name]) => !ignored.includes(name) && !fetchDefaults.includes(name)),
  );
}

describe('the measured request is the tools/call an MCP SDK v2 client sends', () => {
  it('has the headers and body of a real 2026-07-28 client with a bearer token', async () => {
    const call = await capturedCall('a-token');
    const plan = mcpToolCall('/mcp', 'a-token');
    expect(plan.method).toBe('POST');
    expect(plan.path).toBe('/mcp');
    expect(plan.headers).toEqual(clientHeaders(call.headers));
    expect(plan.body).toBe(call.body);
  });

  it('sends no authorization header to the reference without authorization, as a client without a token', async () => {
    const call = await capturedCall(undefined);
    const plan = mcpToolCall('/mcp');
    expect(plan.headers).not.toHaveProperty('authorization');
    expect(plan.headers).toEqual(clientHeaders(call.headers));
    expect(plan.body).toBe(call.body);
  });
});

describe('a target is measured only once it serves the host’s list_notes and answers the call with 200', () => {
  it('accepts a server listing list_notes as the host does and answering the empty list', async () => {
    const target = await serveTool();
    await expect(checkMcpToolCall(target, '/mcp')).resolves.toBeUndefined();
  });

  it('refuses a server whose list_notes is described otherwise', async () => {
    const target = await serveTool({ description: 'Something else.', text: '[]' });
    await expect(checkMcpToolCall(target, '/mcp')).rejects.toThrow(/lists .*Something else/);
  });

  it('refuses a server whose call answers something else', async () => {
    const target = await serveTool({ description: LIST_NOTES.description, text: '[{"text":"a"}]' });
    await expect(checkMcpToolCall(target, '/mcp')).rejects.toThrow(/answered the call with/);
  });

  it('refuses a server that answers other than 200, saying what it answered', async () => {
    const url = await listen(
      createServer((_request, response) => {
        response.writeHead(401, { 'www-authenticate': 'Bearer' }).end('{"error":"invalid_token"}');
      }),
    );
    await expect(checkMcpToolCall({ url }, '/mcp')).rejects.toThrow(
      /answered 401: \{"error":"invalid_token"\}/,
    );
  });
});
