// The path for hosts still serving MCP with SDK v1: Keyhold's request gate in front of a v1 `McpServer` on
// the v1 stateless Streamable HTTP transport, and brokered-token elicitation thrown as the host's own v1
// `UrlElicitationRequiredError` (what token-vault's `ElicitationRequiredError.toMCPError(ctor)` builds).
import { createServer, request as httpRequest, type Server } from 'node:http';
import { createManualClock } from '@keyhold/core';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ErrorCode, McpError, UrlElicitationRequiredError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import type { BrokerElicitation } from '../src/index.js';
import { createMcpRequestGate } from '../src/sdk-v1.js';
import { fakeBroker, legacyClient, testResource, textOf } from './fixtures.js';
import { closeServer, listenOnLoopback } from './mounting/harness.js';
import { v1GatedHost } from './v1-host.js';

type UrlElicitation = { mode: 'url'; elicitationId: string; url: string; message: string };

/**
 * What token-vault's `ElicitationRequiredError.toMCPError(ctor)` does with the host's v1 class: construct it
 * with the one URL elicitation and the message, then set the message again. v1's `McpError` constructor
 * stores `"MCP error -32042: <message>"`, the v1 server sends `.message` as it is, and the v1 client adds
 * the prefix once more; setting it again leaves one prefix on the client.
 */
function toMCPError<E extends Error>(
  ctor: new (elicitations: UrlElicitation[], message?: string) => E,
  pending: BrokerElicitation,
  options: { stripPrefix?: boolean } = {},
): E {
  const error = new ctor(
    [
      {
        mode: 'url',
        elicitationId: pending.elicitationId,
        url: pending.elicitationUrl,
        message: pending.message,
      },
    ],
    pending.message,
  );
  if (options.stripPrefix !== false) error.message = pending.message;
  return error;
}

let server: Server;
let url: string;
const broker = fakeBroker();
/** `extra.authInfo.clientId` as each v1 tool call saw it. */
const seenClientIds: string[] = [];

/** A v1 server with the host's tools, built per request: the v1 stateless transport serves one request. */
function buildV1Server(): McpServer {
  const mcp = new McpServer({ name: 'v1-host', version: '1.0.0' });
  mcp.registerTool('echo', { inputSchema: { text: z.string() } }, async ({ text }, extra) => {
    seenClientIds.push(extra.authInfo?.clientId ?? '(none)');
    const sub = String(extra.authInfo?.extra?.['sub'] ?? '(none)');
    return { content: [{ type: 'text', text: `${text} (${sub} via ${extra.authInfo?.clientId})` }] };
  });
  for (const [name, stripPrefix] of [
    ['list_repos', true],
    ['list_repos_unfixed', false],
  ] as const) {
    mcp.registerTool(name, { inputSchema: { owner: z.string() } }, async ({ owner }, extra) => {
      seenClientIds.push(extra.authInfo?.clientId ?? '(none)');
      const outcome = await broker.requestToken(
        { ask: 'oauth', provider: 'github', scopes: ['repo'] },
        { tenantId: 'demo', userId: String(extra.authInfo?.extra?.['sub']), toolModuleId: 'github' },
      );
      if (!outcome.ok) {
        throw toMCPError(UrlElicitationRequiredError, outcome.error, { stripPrefix });
      }
      return { content: [{ type: 'text', text: `repos of ${owner} with ${outcome.accessToken}` }] };
    });
  }
  return mcp;
}

beforeAll(async () => {
  let gate!: ReturnType<typeof createMcpRequestGate>;
  // The README recipe for hosts on SDK v1, on node:http.
  server = createServer(v1GatedHost(() => gate, buildV1Server));
  url = await listenOnLoopback(server);
  const clock = createManualClock(Date.now());
  gate = createMcpRequestGate({ resource: testResource(clock, url) });
});

afterAll(() => closeServer(server));

/** A raw POST, for what fetch cannot send (a foreign Host). */
function post(
  headers: Record<string, string>,
): Promise<{ status: number; headers: Record<string, unknown> }> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers }));
      },
    );
    outgoing.on('error', reject);
    outgoing.end(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }));
  });
}

describe('SDK v1 hosts: createMcpRequestGate in front of a v1 McpServer (stateless transport)', () => {
  it('serves the v1 client, and the tool sees the verified token as extra.authInfo', async () => {
    const client = await legacyClient(url, 'alice-token');
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['echo', 'list_repos', 'list_repos_unfixed']);
    seenClientIds.length = 0;
    const result = await client.callTool({ name: 'echo', arguments: { text: 'hi' } });
    expect(textOf(result)).toBe('hi (alice via client-a)');
    expect(seenClientIds).toEqual(['client-a']);
    await client.close();
  });

  it('passes -32042 with one "MCP error -32042: " prefix, and the retry after authorizing succeeds', async () => {
    const client = await legacyClient(url, 'bob-token');
    const error = await client
      .callTool({ name: 'list_repos', arguments: { owner: 'acme' } })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(McpError);
    const mcpError = error as McpError;
    expect(mcpError.code).toBe(ErrorCode.UrlElicitationRequired);
    expect(mcpError.message).toBe('MCP error -32042: GitHub authorization is needed');
    const elicitations = (mcpError.data as { elicitations: UrlElicitation[] }).elicitations;
    expect(elicitations).toEqual([
      {
        mode: 'url',
        elicitationId: expect.stringMatching(/^e\d+$/),
        url: expect.stringMatching(/^https:\/\/host\.example\/auth\/oauth\/connect\?elicitation_id=e\d+$/),
        message: 'GitHub authorization is needed',
      },
    ]);
    broker.authorize(elicitations[0]?.url ?? '');
    const retry = await client.callTool({ name: 'list_repos', arguments: { owner: 'acme' } });
    expect(textOf(retry)).toBe('repos of acme with token-of-bob');
    await client.close();
  });

  it('shows why the message is set again: v1 construction alone reaches the client prefixed twice', async () => {
    const client = await legacyClient(url, 'alice-token');
    const error = await client
      .callTool({ name: 'list_repos_unfixed', arguments: { owner: 'acme' } })
      .catch((caught: unknown) => caught);
    expect((error as McpError).code).toBe(ErrorCode.UrlElicitationRequired);
    expect((error as McpError).message).toBe(
      'MCP error -32042: MCP error -32042: GitHub authorization is needed',
    );
    await client.close();
  });

  it('answers a request without a token 401 with the RFC 9728 resource_metadata challenge', async () => {
    const response = await post({});
    expect(response.status).toBe(401);
    expect(String(response.headers['www-authenticate'])).toMatch(/^Bearer /);
    expect(String(response.headers['www-authenticate'])).toContain(
      `resource_metadata="${new URL('/.well-known/oauth-protected-resource/mcp', url).href}"`,
    );
  });

  it('answers a foreign Host 403 before looking at the token (DNS rebinding)', async () => {
    const response = await post({ host: 'evil.example', authorization: 'Bearer alice-token' });
    expect(response.status).toBe(403);
    const withoutToken = await post({ host: 'evil.example' });
    expect(withoutToken.status).toBe(403);
  });

  it('refuses a machine subject by default, as createMcpEndpoint does', async () => {
    const response = await post({ authorization: 'Bearer machine-token' });
    expect(response.status).toBe(403);
    expect(String(response.headers['www-authenticate'])).toContain('error="invalid_token"');
    expect(String(response.headers['www-authenticate'])).not.toContain('scope=');
  });
});
