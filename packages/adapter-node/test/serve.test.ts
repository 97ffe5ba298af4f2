import { request } from 'node:http';
import { jsonResult } from '@keyhold/core';
import { describe, expect, it } from 'vitest';
import { createNodeListener } from '../src/listener.js';
import { serve } from '../src/serve.js';

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
      createNodeListener(async () => {
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
    const running = await serve(createNodeListener(async () => jsonResult(200, {})));
    await Promise.all([running.close(), running.close()]);
    await running.close();
    expect(running.server.listening).toBe(false);
  });
});
