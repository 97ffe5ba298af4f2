import { createServer, type Server } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import type { FetchHandler, FetchRequestInfo, Logger } from '@keyhold/core';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { toNodeListener } from '../src/index.js';

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function listen(listener: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(listener);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Echoes what it received, so each test can see what the listener handed to `fetch`. */
const echo: FetchHandler = async (request, info) =>
  Response.json({
    method: request.method,
    url: request.url,
    body: await request.text(),
    contentType: request.headers.get('content-type'),
    info: info ?? null,
  });

const form = { 'content-type': 'application/x-www-form-urlencoded' };

describe('toNodeListener: any fetch handler on node:http', () => {
  it('passes method, full URL, body, client address and the host user to fetch', async () => {
    const url = await listen(toNodeListener(echo, { resolveUserId: () => 'user-1' }));
    const answer = await fetch(`${url}/tenant/demo/token?x=1`, {
      method: 'POST',
      headers: form,
      body: 'a=1&b=2',
    });
    const seen = (await answer.json()) as {
      method: string;
      url: string;
      body: string;
      info: FetchRequestInfo;
    };
    expect(seen.method).toBe('POST');
    expect(seen.url).toBe(`${url}/tenant/demo/token?x=1`);
    expect(seen.body).toBe('a=1&b=2');
    expect(seen.info).toEqual({ ip: '127.0.0.1', userId: 'user-1' });
  });

  it('writes every Set-Cookie separately and streams a body as it is produced', async () => {
    let push: (text: string) => void = () => {};
    let close: () => void = () => {};
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        push = (text) => controller.enqueue(new TextEncoder().encode(text));
        close = () => controller.close();
      },
    });
    const headers = new Headers({ 'content-type': 'text/event-stream' });
    headers.append('set-cookie', 'a=1; Path=/');
    headers.append('set-cookie', 'b=2; Path=/');
    const url = await listen(toNodeListener(async () => new Response(stream, { headers })));
    const answer = await fetch(url);
    expect(answer.headers.getSetCookie()).toEqual(['a=1; Path=/', 'b=2; Path=/']);
    const reader = answer.body!.getReader();
    push('data: one\n\n');
    // The first event arrives while the stream is still open: nothing was buffered to the end.
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('data: one\n\n');
    push('data: two\n\n');
    close();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('data: two\n\n');
  });

  it('answers 400, not 500, for a Host header no URL can carry, without calling fetch', async () => {
    let called = false;
    const url = await listen(
      toNodeListener(async () => {
        called = true;
        return new Response('no');
      }),
    );
    const { port } = new URL(url);
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () => {
        socket.write('GET /x HTTP/1.1\r\nHost: bad host\r\nConnection: close\r\n\r\n');
      });
      let text = '';
      socket.on('data', (chunk) => {
        text += chunk.toString();
      });
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    expect(answer.split('\r\n')[0]).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer).toContain('malformed request target');
    expect(called).toBe(false);
  });

  it('answers 413 for a body over the limit without calling fetch', async () => {
    let called = false;
    const url = await listen(
      toNodeListener(
        async () => {
          called = true;
          return new Response('no');
        },
        { bodyLimitBytes: 10 },
      ),
    );
    const answer = await fetch(url, { method: 'POST', headers: form, body: 'x'.repeat(100) });
    expect(answer.status).toBe(413);
    expect(called).toBe(false);
  });
});

describe('Express 5 with global body parsers: a pre-parsed body is used, or the mistake is named', () => {
  function app(parsers: 'json' | 'urlencoded' | 'extended', logger?: Logger) {
    const application = express();
    if (parsers === 'json') application.use(express.json());
    if (parsers === 'urlencoded') application.use(express.urlencoded({ extended: false }));
    if (parsers === 'extended') application.use(express.urlencoded({ extended: true }));
    application.use('/auth', toNodeListener(echo, logger ? { logger } : {}));
    return application;
  }

  it('re-encodes a form express.urlencoded() parsed, duplicates kept, under a Router prefix', async () => {
    const url = await listen(app('urlencoded'));
    const answer = await fetch(`${url}/auth/tenant/demo/token`, {
      method: 'POST',
      headers: form,
      body: 'grant_type=client_credentials&scope=a&scope=b',
    });
    const seen = (await answer.json()) as { url: string; body: string };
    expect(seen.url).toBe(`${url}/auth/tenant/demo/token`);
    expect(new URLSearchParams(seen.body).getAll('scope')).toEqual(['a', 'b']);
    expect(new URLSearchParams(seen.body).get('grant_type')).toBe('client_credentials');
  });

  it('re-encodes JSON express.json() parsed', async () => {
    const url = await listen(app('json'));
    const answer = await fetch(`${url}/auth/tenant/demo/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: ['https://app.example/cb'] }),
    });
    const seen = (await answer.json()) as { body: string };
    expect(JSON.parse(seen.body)).toEqual({ redirect_uris: ['https://app.example/cb'] });
  });

  it('answers 500 naming the fix, and logs it, when an extended parse left nested values', async () => {
    const lines: string[] = [];
    const logger: Logger = {
      debug: () => {},
      info: () => {},
      warn: () => {},
      error: (_fields, message) => {
        lines.push(message ?? '');
      },
    };
    const url = await listen(app('extended', logger));
    const answer = await fetch(`${url}/auth/tenant/demo/token`, {
      method: 'POST',
      headers: form,
      body: 'a[b]=c',
    });
    expect(answer.status).toBe(500);
    const body = (await answer.json()) as { error_description: string };
    expect(body.error_description).toContain('mount Keyhold before global body parsers');
    expect(lines.join('\n')).toContain('mount Keyhold before global body parsers');
  });
});
