import { request } from 'node:http';
import { connect } from 'node:net';
import type { HandlerResult } from '@keyhold/core';
import { jsonResult, toResponse } from '@keyhold/internal';
import { describe, expect, it, vi } from 'vitest';
import { type NodeMiddleware, type ToNodeListenerOptions, toNodeListener } from '../src/node-listener.js';
import { serve } from '../src/serve.js';

/** The one Node adapter serving a handler that makes a `HandlerResult` of the request. */
function listenerOf(
  handler: (request: Request) => Promise<HandlerResult>,
  options: ToNodeListenerOptions = {},
): NodeMiddleware {
  return toNodeListener(async (request) => toResponse(await handler(request)), options);
}

const INVALID_OPTIONS = { name: 'NodeAdapterError', code: 'ERR_INVALID_OPTIONS' };

describe('serve: graceful shutdown', () => {
  it('lets an in-flight request finish, refuses new connections, then runs the close hooks in order', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let reached!: () => void;
    const handlerReached = new Promise<void>((resolve) => {
      reached = resolve;
    });
    const events: string[] = [];
    const running = await serve(
      listenerOf(async () => {
        reached();
        await gate;
        return jsonResult(200, { done: true });
      }),
      { onClose: [() => void events.push('store closed'), () => void events.push('logs flushed')] },
    );
    const inFlight = fetch(`${running.url}/slow`).then(async (r) => ({
      status: r.status,
      body: await r.json(),
    }));
    await handlerReached;
    const closed = running.close();
    await expect(fetch(`${running.url}/new`)).rejects.toThrow();
    expect(events).toEqual([]);
    release();
    expect(await inFlight).toEqual({ status: 200, body: { done: true } });
    await closed;
    expect(events).toEqual(['store closed', 'logs flushed']);
  });

  it('cuts connections still open after the timeout', async () => {
    const running = await serve(
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(': open\n\n'); // a stream that never ends, like an SSE GET
      },
      { shutdownTimeoutMs: 100 },
    );
    const url = new URL(running.url);
    let ended!: Promise<void>;
    await new Promise<void>((opened) => {
      ended = new Promise<void>((resolve) => {
        request({ host: url.hostname, port: url.port, path: '/sse' }, (res) => {
          res.once('data', () => opened());
          res.on('close', () => resolve());
        }).end();
      });
    });
    await running.close();
    await ended;
    expect(running.server.listening).toBe(false);
  });

  it('makes close() idempotent', async () => {
    const running = await serve(listenerOf(async () => jsonResult(200, {})));
    await Promise.all([running.close(), running.close()]);
    await running.close();
    expect(running.server.listening).toBe(false);
  });
});

function withHost(url: string, host: string): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ host: hostname, port, path: '/x', headers: { host } }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => {
        body += chunk.toString();
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('serve: Host validation is on by default', () => {
  it('bound to loopback (port 0), answers 127.0.0.1, localhost and [::1] with the bound port, and 421 to others', async () => {
    const running = await serve(listenerOf(async () => jsonResult(200, { ok: true })));
    try {
      const port = new URL(running.url).port;
      expect(running.allowedHosts).toEqual(
        expect.arrayContaining([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]),
      );
      for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]) {
        expect((await withHost(running.url, host)).status, host).toBe(200);
      }
      expect((await withHost(running.url, `rebind.attacker.example:${port}`)).status).toBe(421);
      expect((await withHost(running.url, `127.0.0.1:${Number(port) + 1}`)).status).toBe(421);
    } finally {
      await running.close();
    }
  });

  it('adds allowedHosts to the loopback names (a proxy in front)', async () => {
    const running = await serve(
      listenerOf(async () => jsonResult(200, {})),
      {
        allowedHosts: ['auth.example.com'],
      },
    );
    try {
      expect((await withHost(running.url, 'auth.example.com')).status).toBe(200);
      expect((await withHost(running.url, 'other.example.com')).status).toBe(421);
    } finally {
      await running.close();
    }
  });

  it('refuses to start on a non-loopback address without allowedHosts, before binding', async () => {
    await expect(serve(() => {}, { hostname: '0.0.0.0' })).rejects.toThrow(/allowedHosts/);
    await expect(serve(() => {}, { hostname: '0.0.0.0' })).rejects.toMatchObject(INVALID_OPTIONS);
    await expect(serve(() => {}, { hostname: '0.0.0.0', allowedHosts: ['bad host'] })).rejects.toMatchObject(
      INVALID_OPTIONS,
    );
  });

  it('uses exactly allowedHosts off loopback, and turns validation off with "any"', async () => {
    const listed = await serve(
      listenerOf(async () => jsonResult(200, {})),
      {
        hostname: '0.0.0.0',
        allowedHosts: ['app.example.com'],
      },
    );
    const port = new URL(listed.url).port;
    const local = `http://127.0.0.1:${port}`;
    try {
      expect(listed.allowedHosts).toEqual(['app.example.com']);
      expect((await withHost(local, 'app.example.com')).status).toBe(200);
      expect((await withHost(local, `127.0.0.1:${port}`)).status).toBe(421);
    } finally {
      await listed.close();
    }
    const open = await serve(
      listenerOf(async () => jsonResult(200, {})),
      { allowedHosts: 'any' },
    );
    try {
      expect(open.allowedHosts).toBe('any');
      expect((await withHost(open.url, 'anything.example')).status).toBe(200);
    } finally {
      await open.close();
    }
  });
});

/** Opens a raw connection, writes `head`, then one byte of `trickle` every `everyMs`; resolves when cut. */
function trickle(
  url: string,
  head: string,
  drip: string,
  everyMs: number,
): Promise<{ elapsedMs: number; received: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const started = Date.now();
    let received = '';
    let i = 0;
    const socket = connect(Number(port), hostname, () => {
      socket.write(head);
    });
    const timer = setInterval(() => {
      if (socket.writable && i < drip.length) socket.write(drip[i++]!);
    }, everyMs);
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString();
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ elapsedMs: Date.now() - started, received });
    });
  });
}

describe('serve: slow senders are cut (header and request timeouts)', () => {
  it('cuts a client that trickles its headers one byte at a time, once headersTimeoutMs has passed', async () => {
    const handler = vi.fn(async () => jsonResult(200, {}));
    const running = await serve(listenerOf(handler), {
      headersTimeoutMs: 500,
      requestTimeoutMs: 1_000,
      connectionsCheckingIntervalMs: 100,
    });
    try {
      const port = new URL(running.url).port;
      const { elapsedMs, received } = await trickle(
        running.url,
        `GET / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`,
        `X-Slow: ${'a'.repeat(200)}`,
        100,
      );
      expect(elapsedMs).toBeLessThan(2_000);
      expect(received).toMatch(/^HTTP\/1\.1 408/);
      expect(handler).not.toHaveBeenCalled();
    } finally {
      await running.close();
    }
  });

  it('cuts a client that trickles its body, once requestTimeoutMs has passed', async () => {
    const running = await serve(
      listenerOf(
        async (request) => {
          await request.text();
          return jsonResult(200, {});
        },
        { bodyTimeoutMs: 60_000 },
      ),
      { headersTimeoutMs: 300, requestTimeoutMs: 800, connectionsCheckingIntervalMs: 100 },
    );
    try {
      const port = new URL(running.url).port;
      const { elapsedMs, received } = await trickle(
        running.url,
        `POST / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Length: 100\r\n\r\n`,
        'x'.repeat(100),
        100,
      );
      expect(elapsedMs).toBeLessThan(2_000);
      expect(received).toMatch(/^HTTP\/1\.1 408/);
    } finally {
      await running.close();
    }
  });

  it('has defaults that cut a one-byte-every-5-seconds sender within seconds, and checks its options', async () => {
    await expect(serve(() => {}, { headersTimeoutMs: 0 })).rejects.toMatchObject(INVALID_OPTIONS);
    await expect(
      serve(() => {}, { headersTimeoutMs: 20_000, requestTimeoutMs: 10_000 }),
    ).rejects.toMatchObject(INVALID_OPTIONS);
    const running = await serve(() => {});
    try {
      expect(running.server.headersTimeout).toBe(10_000);
      expect(running.server.requestTimeout).toBe(30_000);
    } finally {
      await running.close();
    }
  });
});
