import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { HandlerResult } from '@keyhold/core';
import { jsonResult, toResponse } from '@keyhold/internal';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { guardHosts } from '../src/host-guard.js';
import { type NodeMiddleware, type ToNodeListenerOptions, toNodeListener } from '../src/node-listener.js';

/** The one Node adapter serving a handler that makes a `HandlerResult` of the request. */
function listenerOf(
  handler: (request: Request) => Promise<HandlerResult>,
  options: ToNodeListenerOptions = {},
): NodeMiddleware {
  return toNodeListener(async (request) => toResponse(await handler(request)), options);
}

let server: Server | undefined;
afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

async function listen(listener: Parameters<typeof createServer>[1]): Promise<number> {
  server = createServer(listener);
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** A request with a Host header of our choosing (fetch does not let one set it). */
export function requestWithHost(
  port: number,
  host: string,
  init: { method?: string; path?: string; body?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: init.method ?? 'GET',
        path: init.path ?? '/',
        headers: { host, ...init.headers },
      },
      (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => {
          body += chunk.toString();
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end(init.body);
  });
}

describe('guardHosts: requests for a host this server does not serve get 421 before any handler', () => {
  it('refuses a request carrying two Host headers (RFC 9112 §3.2), even when the first is allowed', async () => {
    const handler = vi.fn(async () => jsonResult(200, { ok: true }));
    let bound = 0;
    bound = await listen(guardHosts(listenerOf(handler), { allowedHosts: () => [`127.0.0.1:${bound}`] }));
    const { connect } = await import('node:net');
    const status = await new Promise<string>((resolve, reject) => {
      const socket = connect(bound, '127.0.0.1', () => {
        socket.write(
          `GET / HTTP/1.1\r\nHost: 127.0.0.1:${bound}\r\nHost: evil.example\r\nConnection: close\r\n\r\n`,
        );
      });
      let data = '';
      socket.on('data', (chunk: Buffer) => {
        data += chunk.toString();
      });
      socket.on('end', () => resolve(data.split('\r\n', 1)[0] ?? ''));
      socket.on('error', reject);
    });
    expect(status).toMatch(/^HTTP\/1\.1 (400|421) /);
    expect(handler).not.toHaveBeenCalled();
  });

  it('passes an allowed Host through and refuses a rebinding name with a JSON 421 and Connection: close', async () => {
    const handler = vi.fn(async () => jsonResult(200, { ok: true }));
    const warn = vi.fn();
    let bound = 0;
    // The port is known only after binding: a function reads it on each request, as serve() does.
    const port = await listen(
      guardHosts(listenerOf(handler), {
        allowedHosts: () => [`127.0.0.1:${bound}`, `localhost:${bound}`],
        logger: { debug() {}, info() {}, warn, error() {} },
      }),
    );
    bound = port;
    expect((await requestWithHost(port, `localhost:${port}`)).status).toBe(200);
    expect(handler).toHaveBeenCalledTimes(1);

    const refused = await requestWithHost(port, `rebind.attacker.example:${port}`, {
      method: 'POST',
      path: '/tenant/demo/register',
      body: '{}',
      headers: { 'content-type': 'application/json', origin: `http://rebind.attacker.example:${port}` },
    });
    expect(refused.status).toBe(421);
    expect(refused.headers['connection']).toBe('close');
    expect(JSON.parse(refused.body)).toEqual({
      error: 'misdirected_request',
      error_description: expect.any(String),
    });
    expect(handler).toHaveBeenCalledTimes(1);
    expect(warn).toHaveBeenCalledWith(
      { host: `rebind.attacker.example:${port}`, path: '/tenant/demo/register' },
      expect.any(String),
    );
  });

  it('refuses a request with a malformed Host', async () => {
    const handler = vi.fn(async () => jsonResult(200, {}));
    const port = await listen(guardHosts(listenerOf(handler), { allowedHosts: ['127.0.0.1'] }));
    expect((await requestWithHost(port, '127.0.0.1@evil.example')).status).toBe(421);
    expect(handler).not.toHaveBeenCalled();
  });

  it('passes a self-guarded path through with any well-formed Host, and guards every other path', async () => {
    const port = await listen(
      guardHosts((_req, res) => res.writeHead(204).end(), {
        allowedHosts: ['app.example'],
        selfGuardedPaths: ['/mcp'],
      }),
    );
    expect((await requestWithHost(port, 'evil.example', { path: '/mcp?claim=x' })).status).toBe(204);
    expect((await requestWithHost(port, 'evil.example', { path: '/mcp/other' })).status).toBe(421);
    expect((await requestWithHost(port, 'evil.example', { path: '/' })).status).toBe(421);
  });

  it('refuses a malformed or repeated Host with 421 on a self-guarded path too', async () => {
    const handler = vi.fn((_req: unknown, res: { writeHead(status: number): { end(): void } }) =>
      res.writeHead(204).end(),
    );
    const port = await listen(
      guardHosts(handler as never, { allowedHosts: ['app.example'], selfGuardedPaths: ['/mcp'] }),
    );
    for (const host of ['app.example@evil.example', 'app.example, evil.example', 'a b', '[']) {
      expect((await requestWithHost(port, host, { path: '/mcp' })).status, host).toBe(421);
    }
    const { connect } = await import('node:net');
    const status = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.write(
          'POST /mcp HTTP/1.1\r\nHost: app.example\r\nHost: app.example\r\nConnection: close\r\n\r\n',
        );
      });
      let data = '';
      socket.on('data', (chunk: Buffer) => {
        data += chunk.toString();
      });
      socket.on('end', () => resolve(data.split('\r\n', 1)[0] ?? ''));
      socket.on('error', reject);
    });
    expect(status).toMatch(/^HTTP\/1\.1 421 /);
    expect(handler).not.toHaveBeenCalled();
  });

  it('takes an http(s) URL in the list as its host with the default port explicit', async () => {
    const handler = vi.fn(async () => jsonResult(200, { ok: true }));
    const port = await listen(
      guardHosts(listenerOf(handler), { allowedHosts: ['https://app.example/base'] }),
    );
    expect((await requestWithHost(port, 'app.example')).status).toBe(200);
    expect((await requestWithHost(port, 'app.example:443')).status).toBe(200);
    expect((await requestWithHost(port, 'app.example:8443')).status).toBe(421);
    expect((await requestWithHost(port, 'other.example')).status).toBe(421);
    expect(handler).toHaveBeenCalledTimes(2);
  });

  it('validates a fixed list when the guard is created', () => {
    expect(() => guardHosts(() => {}, { allowedHosts: ['app example'] })).toThrow(
      expect.objectContaining({ name: 'NodeAdapterError', code: 'ERR_INVALID_OPTIONS' }),
    );
  });
});
