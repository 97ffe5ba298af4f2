// `toNodeListener(endpoint)` gives the MCP endpoint what `toMcpNodeListener` of `@keyhold/mcp/node` gave it:
// a refusal on headers before the body is read, SSE answers streamed, and a body express.json() parsed used.
import type { Area } from '@keyhold/core';
import { createMcpEndpoint, defineTool, type McpEndpoint } from '@keyhold/mcp';
import {
  createAuthorizationServer,
  createMemoryStorage,
  createStaticTenants,
  generateSigningKey,
} from '@keyhold/oauth-core';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { toNodeListener } from '../src/node-listener.js';
import { closeAll, listen, slowPost } from './support/http.js';

afterEach(closeAll);

const endpoints: McpEndpoint[] = [];
afterEach(async () => {
  for (const endpoint of endpoints.splice(0)) await endpoint.close();
});

/** The endpoint, through an area that records the parsed body it is handed. */
function recording(endpoint: () => McpEndpoint, seen: unknown[] = []): Area {
  return {
    fetch: (request, info) => {
      seen.push(info?.parsedBody);
      return endpoint().fetch(request, info);
    },
    ownsPath: (path) => endpoint().ownsPath(path),
  };
}

/**
 * An authorization server whose tenant's resource is `{origin}/mcp`, with a machine client's token for it
 * (the resource serves machine subjects, so no user flow is needed to get one).
 */
async function buildEndpoint(origin: string): Promise<{ endpoint: McpEndpoint; token: string }> {
  const server = createAuthorizationServer({
    baseUrl: origin,
    tenants: createStaticTenants({ demo: { signingKeys: [await generateSigningKey('ES256', 'k1')] } }),
    storage: createMemoryStorage(),
  });
  const resource = server.protectedResource('demo', { url: `${origin}/mcp`, allowMachineSubjects: true });
  const client = await server.clients.provision('demo', {
    grantTypes: ['client_credentials'],
    scope: 'mcp:tools',
  });
  const issued = await server.fetch(
    new Request(`${origin}/tenant/demo/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${btoa(`${client.clientId}:${client.clientSecret}`)}`,
      },
      body: `grant_type=client_credentials&scope=mcp%3Atools&resource=${encodeURIComponent(`${origin}/mcp`)}`,
    }),
  );
  const { access_token: token } = (await issued.json()) as { access_token: string };
  const endpoint = createMcpEndpoint({
    resource,
    serverInfo: { name: 'adapter-test', version: '1.0.0' },
    toolModules: [
      {
        toolModuleId: 'notes',
        displayName: 'Notes',
        tools: [
          defineTool({
            name: 'echo',
            inputSchema: z.object({ text: z.string() }),
            handler: ({ text }) => ({ content: [{ type: 'text', text }] }),
          }),
        ],
      },
    ],
  });
  endpoints.push(endpoint);
  return { endpoint, token };
}

/** Listens first (the resource URL names the port), then builds the endpoint the area serves. */
async function mounted(make: (area: Area) => Parameters<typeof listen>[0], seen?: unknown[]) {
  let endpoint: McpEndpoint | undefined;
  const { url, server } = await listen(make(recording(() => endpoint!, seen)));
  const built = await buildEndpoint(url);
  endpoint = built.endpoint;
  return { url: `${url}/mcp`, server, token: built.token };
}

function listTools(token: string): RequestInit {
  return {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${token}`,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
  };
}

function toolNamesIn(sse: string): string[] {
  const data = sse
    .split('\n')
    .filter((line) => line.startsWith('data: ') && line.length > 6)
    .map((line) => JSON.parse(line.slice(6)) as { result?: { tools: { name: string }[] } });
  return data.flatMap((message) => message.result?.tools.map((tool) => tool.name) ?? []);
}

describe('the MCP endpoint behind toNodeListener: refused on headers before its body is read', () => {
  it('answers an unauthenticated 8 MiB POST 401 with the challenge while the body is still arriving', async () => {
    const { url, server } = await mounted((area) => toNodeListener(area));
    const sockets: import('node:net').Socket[] = [];
    server.on('connection', (socket) => sockets.push(socket));
    const size = 8 * 1024 * 1024;
    const result = await slowPost(
      url,
      '/mcp',
      size,
      'content-type: application/json\r\naccept: application/json, text/event-stream\r\n',
    );
    expect(result.head).toMatch(/^HTTP\/1\.1 401 /);
    expect(result.head.toLowerCase()).toContain('www-authenticate: bearer');
    expect(result.head.toLowerCase()).toContain('connection: close');
    expect(result.sent).toBeLessThan(size);
    expect(sockets.at(-1)!.bytesRead).toBeLessThan(1024 * 1024);
  });
});

describe('the MCP endpoint behind toNodeListener: answers streamed', () => {
  it('streams a tools/list answer as SSE (chunked, no Content-Length)', async () => {
    const { url, token } = await mounted((area) => toNodeListener(area));
    const answer = await fetch(url, listTools(token));
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toContain('text/event-stream');
    expect(answer.headers.get('content-length')).toBeNull();
    expect(toolNamesIn(await answer.text())).toEqual(['echo']);
  });
});

describe('the MCP endpoint behind toNodeListener in Express: a body express.json() parsed is used', () => {
  it('hands the parsed body to the endpoint as parsedBody, and the app keeps its own routes', async () => {
    const seen: unknown[] = [];
    const { url, token } = await mounted((area) => {
      const app = express();
      app.use(express.json());
      app.use(toNodeListener(area));
      app.get('/health', (_req, res) => {
        res.send('ok');
      });
      return app;
    }, seen);
    const answer = await fetch(url, listTools(token));
    expect(toolNamesIn(await answer.text())).toEqual(['echo']);
    expect(seen).toEqual([{ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }]);
    expect(await (await fetch(new URL('/health', url))).text()).toBe('ok');
  });
});
