import { createServer, type Server } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import type { HandlerRequest } from '@keyhold/core';
import { jsonResult } from '@keyhold/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createNodeListener } from '../src/listener.js';
import { createRouter } from '../src/router.js';

let server: Server | undefined;

async function serve(listener: Parameters<typeof createServer>[1]): Promise<string> {
  server = createServer(listener);
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

describe('createNodeListener: request in', () => {
  it('hands the handler the method, path, raw query, lower-cased headers, raw body, ip and user', async () => {
    let seen: HandlerRequest | undefined;
    const base = await serve(
      createNodeListener(
        async (request) => {
          seen = request;
          return jsonResult(200, { ok: true });
        },
        { resolveUserId: (req) => (req.headers['x-test-user'] as string | undefined) ?? undefined },
      ),
    );
    const response = await fetch(`${base}/tenant/demo/token?a=1&b=%20`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Test-User': 'u1' },
      body: 'grant_type=x',
    });
    expect(response.status).toBe(200);
    expect(seen).toMatchObject({
      method: 'POST',
      path: '/tenant/demo/token',
      query: 'a=1&b=%20',
      body: 'grant_type=x',
      userId: 'u1',
      ip: '127.0.0.1',
    });
    expect(seen?.headers['content-type']).toBe('application/x-www-form-urlencoded');
  });

  it('answers 413 to a body over the limit without calling the handler', async () => {
    const handler = vi.fn(async () => jsonResult(200, {}));
    const base = await serve(createNodeListener(handler, { bodyLimitBytes: 10 }));
    const response = await fetch(`${base}/x`, { method: 'POST', body: 'x'.repeat(11) });
    expect(response.status).toBe(413);
    expect(handler).not.toHaveBeenCalled();
  });

  it('answers a generic 500 for an exception, logs it, and keeps serving', async () => {
    const error = vi.fn();
    let calls = 0;
    const base = await serve(
      createNodeListener(
        async () => {
          calls++;
          if (calls === 1) throw new Error('secret detail');
          return jsonResult(200, { ok: true });
        },
        { logger: { debug() {}, info() {}, warn() {}, error } },
      ),
    );
    const first = await fetch(`${base}/x`);
    expect(first.status).toBe(500);
    expect(await first.text()).not.toContain('secret detail');
    expect(error).toHaveBeenCalledOnce();
    expect((await fetch(`${base}/x`)).status).toBe(200);
  });

  it.each([
    ['CR/LF', 'a\r\nSet-Cookie: x=1'],
    ['a NUL', 'a\u0000b'],
    ['a character above latin1', 'a😀'],
  ])('answers a generic 500 for a result header with %s, logs it, and keeps serving', async (_, value) => {
    const error = vi.fn();
    let calls = 0;
    const base = await serve(
      createNodeListener(
        async () => {
          calls++;
          return calls === 1 ? { status: 401, headers: { 'www-authenticate': value } } : jsonResult(200, {});
        },
        { logger: { debug() {}, info() {}, warn() {}, error } },
      ),
    );
    const first = await fetch(`${base}/x`);
    expect(first.status).toBe(500);
    expect(first.headers.get('set-cookie')).toBeNull();
    expect(error).toHaveBeenCalledOnce();
    expect((await fetch(`${base}/x`)).status).toBe(200);
  });
});

describe('clientIp: X-Forwarded-For only through trusted proxies', () => {
  it('ignores X-Forwarded-For by default', async () => {
    let ip: string | undefined;
    const base = await serve(
      createNodeListener(async (r) => {
        ip = r.ip;
        return jsonResult(200, {});
      }),
    );
    await fetch(`${base}/`, { headers: { 'X-Forwarded-For': '203.0.113.9' } });
    expect(ip).toBe('127.0.0.1');
  });

  it('takes the first untrusted hop from the right when the socket is a trusted proxy', async () => {
    let ip: string | undefined;
    const trusted = new Set(['127.0.0.1', '10.0.0.2']);
    const base = await serve(
      createNodeListener(
        async (r) => {
          ip = r.ip;
          return jsonResult(200, {});
        },
        { trustProxy: (a) => trusted.has(a) },
      ),
    );
    await fetch(`${base}/`, { headers: { 'X-Forwarded-For': '198.51.100.7, 203.0.113.9, 10.0.0.2' } });
    expect(ip).toBe('203.0.113.9');
  });

  it('stops at a hop that is no address: a client cannot choose its own key with garbage', async () => {
    const seen: (string | undefined)[] = [];
    const base = await serve(
      createNodeListener(
        async (r) => {
          seen.push(r.ip);
          return jsonResult(200, {});
        },
        { trustProxy: (a) => a === '127.0.0.1' },
      ),
    );
    for (const forged of ['g1', 'g2', '198.51.100.7, not-an-ip']) {
      await fetch(`${base}/`, { headers: { 'X-Forwarded-For': forged } });
    }
    expect(seen).toEqual(['127.0.0.1', '127.0.0.1', '127.0.0.1']);
  });
});

describe('createRouter', () => {
  const router = createRouter()
    .on('GET', '/health', async () => jsonResult(200, { status: 'ok' }))
    .on('POST', '/tenant/:tenant/token', async (_r, params) => jsonResult(200, params))
    .on('POST', '/webhook/:module/*', async (_r, params) => jsonResult(200, params));

  const request = (method: string, path: string): HandlerRequest => ({
    method,
    path,
    query: '',
    headers: {},
    body: '',
  });

  it('captures :name segments, decoded', async () => {
    const result = await router.handle(request('POST', '/tenant/my%20t/token'));
    expect(JSON.parse(result.body!)).toEqual({ tenant: 'my t' });
  });

  it('captures the rest of the path with *', async () => {
    const result = await router.handle(request('POST', '/webhook/gh/github/push'));
    expect(JSON.parse(result.body!)).toEqual({ module: 'gh', '*': 'github/push' });
  });

  it('answers 405 with Allow when only the method differs', async () => {
    const result = await router.handle(request('GET', '/tenant/demo/token'));
    expect(result.status).toBe(405);
    expect(result.headers['allow']).toBe('POST');
  });

  it('answers 404 when no path matches', async () => {
    expect((await router.handle(request('GET', '/nope'))).status).toBe(404);
  });

  it('serves HEAD through a GET route', async () => {
    expect((await router.handle(request('HEAD', '/health'))).status).toBe(200);
  });
});

describe('createNodeListener: body timeout on any server', () => {
  it('answers 408 with Connection: close when the body does not arrive within bodyTimeoutMs', async () => {
    const handler = vi.fn(async () => jsonResult(200, {}));
    const base = await serve(createNodeListener(handler, { bodyTimeoutMs: 300 }));
    const { port } = new URL(base);
    const started = Date.now();
    const received = await new Promise<string>((resolve) => {
      let data = '';
      const socket = connect(Number(port), '127.0.0.1', () => {
        socket.write(`POST /x HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Length: 50\r\n\r\nabc`);
      });
      socket.on('data', (chunk: Buffer) => {
        data += chunk.toString();
      });
      socket.on('close', () => resolve(data));
    });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(received).toMatch(/^HTTP\/1\.1 408/);
    expect(received.toLowerCase()).toContain('connection: close');
    expect(received).toContain('"error":"request_timeout"');
    expect(handler).not.toHaveBeenCalled();
  });
});
