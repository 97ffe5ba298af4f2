import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { formatClaimCode } from '../../src/code.js';
import { createClaimSession } from '../../src/mcp/claim-session.js';
import { registerToolModules } from '../../src/mcp/tool-modules.js';
import { createMemoryClaimStore } from '../../src/memory-store.js';
import {
  callError,
  connectClient,
  startHost,
  type TestHost,
  toolModuleTree,
  toolNames,
} from './host-fixture.js';

const ALL = ['alpha_echo', 'alpha_fail', 'alpha_login', 'beta_echo', 'sneaky_echo'];
const ALPHA = ['alpha_echo', 'alpha_fail', 'alpha_login'];

let host: TestHost;
const clients: Client[] = [];
async function client(code?: string): Promise<Client> {
  const connected = await connectClient(host.url, code);
  clients.push(connected);
  return connected;
}

beforeEach(async () => {
  host = await startHost();
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await host.close();
});

describe('tools/list: only the modules whose source file lies under the scope', () => {
  it('gives a session without a code every tool', async () => {
    expect(await toolNames(await client())).toEqual(ALL);
  });

  it('gives a session with a code only the tools of modules under its directory', async () => {
    const claim = await host.claims.create({ scopeDir: host.alphaDir });
    expect(await toolNames(await client(formatClaimCode(claim.code)))).toEqual(ALPHA);
  });

  it('resolves module sources through symlinks: a link in the scope to a file outside is not in it', async () => {
    const claim = await host.claims.create({ scopeDir: host.alphaDir });
    expect(await toolNames(await client(claim.code))).not.toContain('sneaky_echo');
    const beta = await host.claims.create({ scopeDir: host.betaDir });
    expect(await toolNames(await client(beta.code))).toEqual(['beta_echo', 'sneaky_echo']);
  });

  it('accepts the code however it is typed', async () => {
    const claim = await host.claims.create({ scopeDir: host.alphaDir });
    expect(await toolNames(await client(` ${formatClaimCode(claim.code).toLowerCase()} `))).toEqual(ALPHA);
  });
});

describe('tools/call: out of scope is refused as if the tool did not exist', () => {
  it('runs a tool in the scope', async () => {
    const claim = await host.claims.create({ scopeDir: host.alphaDir });
    const result = await (await client(claim.code)).callTool({
      name: 'alpha_echo',
      arguments: { text: 'hi' },
    });
    expect(result.content).toEqual([{ type: 'text', text: 'alpha:hi' }]);
  });

  it('answers a tool outside the scope with the very error of an unknown tool', async () => {
    const claim = await host.claims.create({ scopeDir: host.alphaDir });
    const scoped = await client(claim.code);
    const outside = await callError(scoped, 'beta_echo');
    const unknown = await callError(scoped, 'gamma_echo');
    expect(outside?.code).toBe(-32602);
    expect(outside?.message.replace('beta_echo', 'NAME')).toBe(
      unknown?.message.replace('gamma_echo', 'NAME'),
    );
    expect(outside?.message).toContain('Unknown tool: beta_echo');
  });

  it('lets a session without a code call any tool', async () => {
    const result = await (await client()).callTool({ name: 'beta_echo', arguments: { text: 'hi' } });
    expect(result.content).toEqual([{ type: 'text', text: 'beta:hi' }]);
  });

  it('answers invalid arguments with a tool error, and a failing tool with its message', async () => {
    const all = await client();
    const invalid = await all.callTool({ name: 'alpha_echo', arguments: { text: 42 } });
    expect(invalid.isError).toBe(true);
    expect(JSON.stringify(invalid.content)).toContain('Invalid arguments for tool alpha_echo');
    const failed = await all.callTool({ name: 'alpha_fail', arguments: {} });
    expect(failed).toMatchObject({ isError: true, content: [{ type: 'text', text: 'disk on fire' }] });
  });

  it('passes an MCP error a tool throws (URL elicitation) through as a JSON-RPC error', async () => {
    expect((await callError(await client(), 'alpha_login'))?.code).toBe(-32042);
  });
});

describe('a missing, unknown, expired or malformed code leaves the session unscoped', () => {
  it.each(['ZZZ-ZZZ', 'not a code', 'AB0-DEF'])('treats %j as no code', async (code) => {
    expect(await toolNames(await client(code))).toEqual(ALL);
  });

  it('widens a session when its code expires, on the next request', async () => {
    const claim = await host.claims.create({ scopeDir: host.alphaDir, ttlSeconds: 60 });
    const scoped = await client(claim.code);
    expect(await toolNames(scoped)).toEqual(ALPHA);
    host.clock.advance(60_000);
    expect(await toolNames(scoped)).toEqual(ALL);
  });
});

describe('revocation takes effect on the next request', () => {
  it('widens the same session right after the code is revoked', async () => {
    const claim = await host.claims.create({ scopeDir: host.alphaDir });
    const scoped = await client(claim.code);
    expect(await toolNames(scoped)).toEqual(ALPHA);
    expect((await callError(scoped, 'beta_echo'))?.code).toBe(-32602);
    await host.claims.revoke(claim.code);
    expect(await toolNames(scoped)).toEqual(ALL);
    expect(await callError(scoped, 'beta_echo')).toBeUndefined();
  });
});

describe('?claim= on the SSE GET stream, for clients that cannot set headers', () => {
  const accept = 'application/json, text/event-stream';

  async function rpc(sessionId: string | undefined, body: object): Promise<Response> {
    return fetch(host.url, {
      method: 'POST',
      headers: {
        accept,
        'content-type': 'application/json',
        'mcp-protocol-version': '2025-11-25',
        ...(sessionId === undefined ? {} : { 'mcp-session-id': sessionId }),
      },
      body: JSON.stringify(body),
    });
  }

  function sseResult(text: string): { result?: { tools?: { name: string }[] } } {
    const data = text.split('\n').find((line) => line.startsWith('data: '));
    return JSON.parse(data?.slice(6) ?? 'null');
  }

  it('scopes the session for its later POSTs that carry no code', async () => {
    const claim = await host.claims.create({ scopeDir: host.alphaDir });
    const init = await rpc(undefined, {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    const sessionId = init.headers.get('mcp-session-id') ?? '';
    await init.text();
    await (await rpc(sessionId, { jsonrpc: '2.0', method: 'notifications/initialized' })).text();

    const list = async () =>
      sseResult(await (await rpc(sessionId, { jsonrpc: '2.0', id: 2, method: 'tools/list' })).text());
    expect((await list()).result?.tools?.map((t) => t.name).sort()).toEqual(ALL);

    const stream = new AbortController();
    const get = await fetch(`${host.url}?claim=${formatClaimCode(claim.code)}`, {
      headers: {
        accept: 'text/event-stream',
        'mcp-session-id': sessionId,
        'mcp-protocol-version': '2025-11-25',
      },
      signal: stream.signal,
    });
    expect(get.status).toBe(200);
    expect((await list()).result?.tools?.map((t) => t.name).sort()).toEqual(ALPHA);
    stream.abort();
  });
});

describe('Mcp-Session-Id stays required and separate', () => {
  it('answers a non-initialize POST without a session id with 400, and an unknown session with 404', async () => {
    const claim = await host.claims.create({ scopeDir: host.alphaDir });
    const headers = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const missing = await fetch(host.url, {
      method: 'POST',
      headers: { ...headers, 'mcp-claim-code': claim.code },
      body,
    });
    expect(missing.status).toBe(400);
    const unknown = await fetch(host.url, {
      method: 'POST',
      headers: { ...headers, 'mcp-session-id': 'nope' },
      body,
    });
    expect(unknown.status).toBe(404);
  });

  it('answers a body that is not JSON with 400 and a parse error, and an oversized one with 413', async () => {
    const headers = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };
    const broken = await fetch(host.url, { method: 'POST', headers, body: '{"jsonrpc":' });
    expect(broken.status).toBe(400);
    expect((await broken.json()).error.code).toBe(-32700);
    const huge = await fetch(host.url, { method: 'POST', headers, body: `"${'x'.repeat(5 * 1024 * 1024)}"` });
    expect(huge.status).toBe(413);
  });

  it('keeps one session per client, each with its own scope', async () => {
    const claim = await host.claims.create({ scopeDir: host.alphaDir });
    const scoped = await client(claim.code);
    const open = await client();
    expect(host.mcp.sessionCount).toBe(2);
    expect(await toolNames(scoped)).toEqual(ALPHA);
    expect(await toolNames(open)).toEqual(ALL);
  });
});

describe('requireClaimCode: a host option that makes a valid code mandatory', () => {
  let gated: TestHost;
  beforeEach(async () => {
    gated = await startHost({ requireClaimCode: true });
  });
  afterEach(async () => {
    await gated.close();
  });

  it('turns away a session without a code, or with an unknown one, with 403', async () => {
    await expect(connectClient(gated.url)).rejects.toThrow(/403|claim code is required/);
    await expect(connectClient(gated.url, 'ZZZ-ZZZ')).rejects.toThrow(/403|claim code is required/);
    expect(gated.mcp.sessionCount).toBe(0);
  });

  it('serves a session with a valid code, and turns it away once the code is revoked', async () => {
    const claim = await gated.claims.create({ scopeDir: gated.alphaDir });
    const scoped = await connectClient(gated.url, claim.code);
    clients.push(scoped);
    expect(await toolNames(scoped)).toEqual(ALPHA);
    await gated.claims.revoke(claim.code);
    await expect(scoped.listTools()).rejects.toThrow(/403|claim code is required/);
  });
});

describe('stdio and other transports without HTTP requests read no code', () => {
  it('serves every tool to an in-memory session', async () => {
    const tree = toolModuleTree();
    const server = new McpServer({ name: 'stdio-like', version: '1.0.0' });
    registerToolModules(server, tree.modules, { session: createClaimSession({ claims: host.claims }) });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const local = new Client({ name: 'local', version: '1.0.0' });
    await local.connect(clientSide);
    clients.push(local);
    expect(await toolNames(local)).toEqual(ALL);
  });
});

describe('registration refuses malformed tool modules', () => {
  it('refuses a tool name used by two modules, naming it', () => {
    const tree = toolModuleTree();
    const twice = [...tree.modules, { ...tree.modules[1], id: 'beta2' } as (typeof tree.modules)[number]];
    const server = new McpServer({ name: 'x', version: '1.0.0' });
    const session = createClaimSession({ claims: host.claims });
    expect(() => registerToolModules(server, twice, { session })).toThrow(/beta_echo is used twice/);
  });
});

describe('registration owns tools/list and tools/call', () => {
  it('refuses a server that already serves tools through McpServer.registerTool', () => {
    const tree = toolModuleTree();
    const server = new McpServer({ name: 'x', version: '1.0.0' });
    server.registerTool('own_tool', {}, async () => ({ content: [] }));
    const session = createClaimSession({ claims: host.claims });
    expect(() => registerToolModules(server, tree.modules, { session })).toThrow(/already serves tools/);
  });
});

describe('a claim-store outage fails closed', () => {
  it('answers a generic internal error, never full access and never the storage details', async () => {
    const broken = await startHost({
      store: {
        ...createMemoryClaimStore(),
        get: async () => {
          throw new Error('/secret/path/claims.json is corrupt');
        },
      },
    });
    try {
      const session = await connectClient(broken.url, 'ABC-DEF');
      clients.push(session);
      const error = await session.listTools().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(McpError);
      expect((error as McpError).code).toBe(-32603);
      expect((error as McpError).message).not.toContain('secret');
    } finally {
      await broken.close();
    }
  });
});
