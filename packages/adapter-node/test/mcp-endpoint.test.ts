import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { jsonResult } from '@keyhold/core';
import { afterEach, describe, expect, it } from 'vitest';
import { createMcpEndpoint, type McpRequestHandler } from '../src/mcp-endpoint.js';

let server: Server | undefined;
afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** An MCP handler stand-in: a request without a session opens one; requests see `req.auth`. */
function fakeMcp(): McpRequestHandler & { seen: { sub: unknown; session: unknown }[] } {
  let next = 0;
  const open = new Set<string>();
  const seen: { sub: unknown; session: unknown }[] = [];
  return {
    seen,
    async handle(req, res) {
      req.resume();
      const session = req.headers['mcp-session-id'];
      seen.push({ sub: req.auth?.extra?.['sub'], session });
      if (session === undefined) {
        const id = `s${++next}`;
        open.add(id);
        res.writeHead(200, { 'mcp-session-id': id }).end('{}');
      } else if (typeof session === 'string' && open.has(session)) {
        if (req.method === 'DELETE') open.delete(session);
        res.writeHead(200).end('{}');
      } else {
        res.writeHead(404).end('{}');
      }
    },
  };
}

async function serve(mcp: McpRequestHandler): Promise<string> {
  const endpoint = createMcpEndpoint({
    mcp,
    authenticate: async (req) => {
      const user = req.headers['x-user'];
      if (typeof user !== 'string') {
        return {
          ok: false,
          result: jsonResult(401, { error: 'invalid_token' }, { 'www-authenticate': 'Bearer realm="t"' }),
        };
      }
      return { ok: true, auth: { token: 't', clientId: 'c', scopes: [], extra: { sub: user } } };
    },
  });
  server = createServer(endpoint);
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
}

const call = (url: string, user: string | undefined, session?: string, method = 'POST') =>
  fetch(url, {
    method,
    headers: { ...(user ? { 'x-user': user } : {}), ...(session ? { 'mcp-session-id': session } : {}) },
    ...(method === 'POST' ? { body: '{}' } : {}),
  });

describe('createMcpEndpoint: bearer authentication before the MCP transport', () => {
  it('answers an unauthenticated request with the authenticator’s challenge and never reaches MCP', async () => {
    const mcp = fakeMcp();
    const url = await serve(mcp);
    const response = await call(url, undefined);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="t"');
    expect(mcp.seen).toEqual([]);
  });

  it('hands the verified token to the MCP handler as req.auth', async () => {
    const mcp = fakeMcp();
    const url = await serve(mcp);
    await call(url, 'alice');
    expect(mcp.seen).toEqual([{ sub: 'alice', session: undefined }]);
  });
});

describe('createMcpEndpoint: a session belongs to the principal that opened it', () => {
  it('answers another principal presenting the session id with 404, without reaching MCP', async () => {
    const mcp = fakeMcp();
    const url = await serve(mcp);
    const session = (await call(url, 'alice')).headers.get('mcp-session-id')!;
    expect((await call(url, 'alice', session)).status).toBe(200);
    const stolen = await call(url, 'mallory', session);
    expect(stolen.status).toBe(404);
    expect(mcp.seen.filter((s) => s.sub === 'mallory')).toEqual([]);
  });

  it('forgets the owner once the session is deleted', async () => {
    const mcp = fakeMcp();
    const url = await serve(mcp);
    const session = (await call(url, 'alice')).headers.get('mcp-session-id')!;
    expect((await call(url, 'alice', session, 'DELETE')).status).toBe(200);
    // Gone for everyone: the MCP handler itself now answers 404, for any principal.
    expect((await call(url, 'mallory', session)).status).toBe(404);
    expect(mcp.seen.at(-1)).toEqual({ sub: 'mallory', session });
  });
});
