// `toNodeListener(endpoint)` gives the MCP endpoint what `toMcpNodeListener` of `@keyhold/mcp/node` gave it:
// a refusal on headers before the body is read, SSE answers streamed, and a body express.json() parsed used.
import { fileURLToPath } from 'node:url';
import type { Area } from '@keyhold/core';
import { createMcpEndpoint, defineTool, type McpEndpoint } from '@keyhold/mcp';
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

/** Today's endpoint as an area (the endpoint gets its own `ownsPath` and `info` in issue 27's other part). */
function asArea(endpoint: () => McpEndpoint, seen: unknown[] = []): Area {
  return {
    fetch: (request, info) => {
      seen.push(info?.parsedBody);
      return endpoint().fetch(
        request,
        info?.parsedBody === undefined ? undefined : { parsedBody: info.parsedBody },
      );
    },
    ownsPath: (path) => path === endpoint().path,
  };
}

function buildEndpoint(url: string): McpEndpoint {
  const endpoint = createMcpEndpoint({
    publicUrl: url,
    serverInfo: { name: 'adapter-test', version: '1.0.0' },
    toolModules: [
      {
        toolModuleId: 'notes',
        displayName: 'Notes',
        sourcePath: fileURLToPath(import.meta.url),
        tools: [
          defineTool({
            name: 'echo',
            inputSchema: z.object({ text: z.string() }),
            handler: ({ text }) => ({ content: [{ type: 'text', text }] }),
          }),
        ],
      },
    ],
    authentication: {
      verifier: {
        async verifyAccessToken(token) {
          if (token !== 'alice-token')
            throw Object.assign(new Error('unknown token'), { code: 'invalid_token' });
          const expiresAt = Math.floor(Date.now() / 1000) + 600;
          return {
            token,
            clientId: 'client-a',
            scopes: ['mcp:tools'],
            expiresAt,
            extra: { sub: 'alice', subjectType: 'user' },
          };
        },
      },
      resourceMetadataUrl: new URL('/.well-known/oauth-protected-resource/mcp', url).href,
    },
    requestStateSecret: 'a-request-state-secret-of-32-bytes-at-least!',
  });
  endpoints.push(endpoint);
  return endpoint;
}

/** Listens first (the endpoint's public URL names the port), then builds the endpoint the area serves. */
async function mounted(make: (area: Area) => Parameters<typeof listen>[0], seen?: unknown[]) {
  let endpoint: McpEndpoint | undefined;
  const { url, server } = await listen(make(asArea(() => endpoint!, seen)));
  endpoint = buildEndpoint(`${url}/mcp`);
  return { url: `${url}/mcp`, server };
}

const listTools = {
  method: 'POST',
  headers: {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    authorization: 'Bearer alice-token',
  },
  body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
};

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
    const { url } = await mounted((area) => toNodeListener(area));
    const answer = await fetch(url, listTools);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toContain('text/event-stream');
    expect(answer.headers.get('content-length')).toBeNull();
    expect(toolNamesIn(await answer.text())).toEqual(['echo']);
  });
});

describe('the MCP endpoint behind toNodeListener in Express: a body express.json() parsed is used', () => {
  it('hands the parsed body to the endpoint as parsedBody, and the app keeps its own routes', async () => {
    const seen: unknown[] = [];
    const { url } = await mounted((area) => {
      const app = express();
      app.use(express.json());
      app.use(toNodeListener(area));
      app.get('/health', (_req, res) => {
        res.send('ok');
      });
      return app;
    }, seen);
    const answer = await fetch(url, listTools);
    expect(toolNamesIn(await answer.text())).toEqual(['echo']);
    expect(seen).toEqual([{ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }]);
    expect(await (await fetch(new URL('/health', url))).text()).toBe('ok');
  });
});
