// The rules of `toNodeListener`, one describe each, over real node:http servers.
import type { Area, FetchHandler, FetchRequestInfo, RawArea, RawRequest } from '@keyhold/core';
import { RAW_HANDLER, StorageUnavailableError } from '@keyhold/core';
import { userIdOf } from '@keyhold/internal';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { NodeAdapterError } from '../src/errors.js';
import { toNodeListener } from '../src/node-listener.js';
import { closeAll, listen, rawExchange, recordingLogger, slowPost } from './support/http.js';

afterEach(closeAll);

/** Echoes what it received, so each test sees what the listener handed to `fetch`. */
const echo: FetchHandler = async (request, info) =>
  Response.json({
    method: request.method,
    url: request.url,
    body: await request.text(),
    contentType: request.headers.get('content-type'),
    contentLength: request.headers.get('content-length'),
    parsedBody: info?.parsedBody ?? null,
    ip: info?.ip ?? null,
  });

/** An area owning the paths under `/auth/`, answering like `echo`. */
const authArea: Area = { fetch: echo, ownsPath: (path) => path.startsWith('/auth/') };

const form = { 'content-type': 'application/x-www-form-urlencoded' };

describe('one conversion each way: the Request carries the whole request, the Response is written whole', () => {
  it('passes method, the full URL with its query, the headers and the body to fetch', async () => {
    const { url } = await listen(toNodeListener(echo));
    const answer = await fetch(`${url}/tenant/demo/token?x=1`, {
      method: 'POST',
      headers: form,
      body: 'a=1&b=2',
    });
    expect(await answer.json()).toMatchObject({
      method: 'POST',
      url: `${url}/tenant/demo/token?x=1`,
      body: 'a=1&b=2',
      contentType: 'application/x-www-form-urlencoded',
      parsedBody: null,
    });
  });

  it('streams a body of several chunks to an area that reads it whole', async () => {
    const { url } = await listen(
      toNodeListener(async (request) => new Response(String((await request.arrayBuffer()).byteLength))),
    );
    const answer = await fetch(url, { method: 'POST', body: 'x'.repeat(3 * 1024 * 1024) });
    expect(await answer.text()).toBe(String(3 * 1024 * 1024));
  });

  it('writes every Set-Cookie separately and streams an SSE body as it is produced', async () => {
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
    const { url } = await listen(toNodeListener(async () => new Response(stream, { headers })));
    // The headers arrive before the stream produces anything: they were flushed.
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
  it('cancels the response stream when the client goes away, and keeps serving', async () => {
    let cancelled: () => void = () => {};
    const wasCancelled = new Promise<void>((resolve) => {
      cancelled = resolve;
    });
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('data: first\n\n'));
      },
      cancel: () => cancelled(),
    });
    const { url } = await listen(
      toNodeListener(async () => new Response(stream, { headers: { 'content-type': 'text/event-stream' } })),
    );
    const aborting = new AbortController();
    const answer = await fetch(url, { signal: aborting.signal });
    await answer.body!.getReader().read();
    aborting.abort();
    await wasCancelled;
  });
});

describe('the request body is streamed: an area that refuses on headers answers before the body is read', () => {
  it('answers 401 to a large POST while its body is still arriving, closes the connection, reads almost none of it', async () => {
    const refusing: FetchHandler = async (request) =>
      request.headers.get('authorization') === null
        ? new Response('{"error":"invalid_token"}', {
            status: 401,
            headers: { 'www-authenticate': 'Bearer' },
          })
        : new Response(await request.text());
    const { url, server } = await listen(toNodeListener(refusing));
    let serverSocket: import('node:net').Socket | undefined;
    server.on('connection', (socket) => {
      serverSocket = socket;
    });
    const size = 8 * 1024 * 1024;
    const result = await slowPost(url, '/mcp', size, 'content-type: application/json\r\n');
    expect(result.head).toMatch(/^HTTP\/1\.1 401 /);
    expect(result.head.toLowerCase()).toContain('connection: close');
    expect(result.sent).toBeLessThan(size);
    expect(serverSocket!.destroyed).toBe(true);
    expect(serverSocket!.bytesRead).toBeLessThan(1024 * 1024);
  });

  it('keeps the connection open when the area read the whole body', async () => {
    const { url } = await listen(toNodeListener(async (request) => new Response(await request.text())));
    const answer = await rawExchange(
      url,
      `POST /x HTTP/1.1\r\nhost: ${new URL(url).host}\r\ncontent-length: 5\r\n\r\nhello` +
        `GET /y HTTP/1.1\r\nhost: ${new URL(url).host}\r\nconnection: close\r\n\r\n`,
    );
    // Two answers on one connection: the first did not close it.
    expect(answer.match(/HTTP\/1\.1 200 /g)).toHaveLength(2);
    expect(answer).toContain('hello');
  });
});

describe('a body not received within bodyTimeoutMs fails the area’s read and is answered 408', () => {
  it('answers 408 with Connection: close whatever the area made of its failed read', async () => {
    let readError: unknown;
    const { url } = await listen(
      toNodeListener(
        async (request) => {
          try {
            await request.text();
          } catch (error) {
            readError = error;
          }
          return new Response('the area answered', { status: 400 });
        },
        { bodyTimeoutMs: 150 },
      ),
    );
    const answer = await rawExchange(
      url,
      `POST /x HTTP/1.1\r\nhost: ${new URL(url).host}\r\ncontent-length: 100\r\n\r\npartial`,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(answer.toLowerCase()).toContain('connection: close');
    expect(answer).toContain('request_timeout');
    expect(readError).toBeInstanceOf(Error);
  });

  it('answers 408 when the area lets the failed read throw', async () => {
    const { url } = await listen(
      toNodeListener(async (request) => new Response(await request.text()), { bodyTimeoutMs: 150 }),
    );
    const answer = await rawExchange(
      url,
      `POST /x HTTP/1.1\r\nhost: ${new URL(url).host}\r\ncontent-length: 100\r\n\r\npartial`,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('leaves alone an area that never read the body: its own answer stands', async () => {
    const { url } = await listen(
      toNodeListener(
        async () => {
          await new Promise((resolve) => setTimeout(resolve, 300));
          return new Response('no body needed', { status: 403 });
        },
        { bodyTimeoutMs: 100 },
      ),
    );
    const answer = await rawExchange(
      url,
      `POST /x HTTP/1.1\r\nhost: ${new URL(url).host}\r\ncontent-length: 100\r\n\r\npartial`,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 403 /);
    expect(answer.toLowerCase()).toContain('connection: close');
  });
});

describe('Express: the full public path, and a body a framework already parsed', () => {
  function app(
    parser: 'json' | 'urlencoded' | 'extended',
    logger?: ReturnType<typeof recordingLogger>['logger'],
  ) {
    const application = express();
    if (parser === 'json') application.use(express.json());
    if (parser === 'urlencoded') application.use(express.urlencoded({ extended: false }));
    if (parser === 'extended') application.use(express.urlencoded({ extended: true }));
    application.use('/auth', toNodeListener(authArea, logger ? { logger } : {}));
    return application;
  }

  it('sees req.originalUrl under a mount prefix, and a form express.urlencoded() parsed, duplicates kept', async () => {
    const { url } = await listen(app('urlencoded'));
    const answer = await fetch(`${url}/auth/tenant/demo/token?q=1`, {
      method: 'POST',
      headers: form,
      body: 'grant_type=client_credentials&scope=a&scope=b',
    });
    const seen = (await answer.json()) as {
      url: string;
      body: string;
      parsedBody: unknown;
      contentLength: string;
    };
    expect(seen.url).toBe(`${url}/auth/tenant/demo/token?q=1`);
    expect(new URLSearchParams(seen.body).getAll('scope')).toEqual(['a', 'b']);
    expect(seen.contentLength).toBe(String(Buffer.byteLength(seen.body)));
    expect(seen.parsedBody).toEqual({ grant_type: 'client_credentials', scope: ['a', 'b'] });
  });

  it('passes the JSON express.json() parsed as info.parsedBody and as the re-encoded body', async () => {
    const { url } = await listen(app('json'));
    const sent = { redirect_uris: ['https://app.example/cb'] };
    const answer = await fetch(`${url}/auth/tenant/demo/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(sent),
    });
    const seen = (await answer.json()) as { body: string; parsedBody: unknown };
    expect(JSON.parse(seen.body)).toEqual(sent);
    expect(seen.parsedBody).toEqual(sent);
  });

  it('answers 500 naming the fix, and logs it, when an extended ("qs") parse left nested values', async () => {
    const { logger, lines } = recordingLogger();
    const { url } = await listen(app('extended', logger));
    const answer = await fetch(`${url}/auth/tenant/demo/token`, {
      method: 'POST',
      headers: form,
      body: 'a[b]=c',
    });
    expect(answer.status).toBe(500);
    const body = (await answer.json()) as { error_description: string };
    expect(body.error_description).toContain('mount Keyhold before global body parsers');
    expect(lines.map((line) => line.message).join('\n')).toContain(
      'mount Keyhold before global body parsers',
    );
  });
});

describe('as middleware, a path the area does not own goes to next() untouched', () => {
  it('lets the app’s routes before and after the mount answer, their bodies unread by Keyhold', async () => {
    const application = express();
    application.get('/login', (_req, res) => {
      res.send('login page');
    });
    application.use(toNodeListener(authArea));
    application.post('/notes', express.json(), (req, res) => {
      res.json({ saved: req.body });
    });
    const { url } = await listen(application);
    expect(await (await fetch(`${url}/login`)).text()).toBe('login page');
    const saved = await fetch(`${url}/notes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"text":"hi"}',
    });
    expect(await saved.json()).toEqual({ saved: { text: 'hi' } });
    const owned = await fetch(`${url}/auth/token`, { method: 'POST', headers: form, body: 'a=1' });
    expect(await owned.json()).toMatchObject({ url: `${url}/auth/token`, body: 'a=1' });
    // Not owned and no later route: Express's own 404, not Keyhold's.
    const missing = await fetch(`${url}/elsewhere`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).not.toContain('application/json');
  });

  it('answers every path itself without next, or for a bare fetch', async () => {
    const area: Area = {
      fetch: async () =>
        new Response('{"error":"not_found"}', {
          status: 404,
          headers: { 'content-type': 'application/json' },
        }),
      ownsPath: () => false,
    };
    const { url: plain } = await listen(toNodeListener(area));
    expect(await (await fetch(`${plain}/elsewhere`)).json()).toEqual({ error: 'not_found' });
    const application = express();
    application.use(toNodeListener(async () => new Response('bare fetch answers')));
    application.get('/never', (_req, res) => {
      res.send('unreachable');
    });
    const { url } = await listen(application);
    expect(await (await fetch(`${url}/never`)).text()).toBe('bare fetch answers');
  });
});

describe('info: the client address from the socket or trustProxy, and the user asked for lazily', () => {
  it('gives the socket address, or the first untrusted X-Forwarded-For hop under trustProxy', async () => {
    const { url: direct } = await listen(toNodeListener(echo));
    const forwarded = { 'x-forwarded-for': '203.0.113.7, 10.0.0.2' };
    expect(await (await fetch(direct, { headers: forwarded })).json()).toMatchObject({ ip: '127.0.0.1' });
    const { url: proxied } = await listen(
      toNodeListener(echo, { trustProxy: (a) => a === '127.0.0.1' || a === '10.0.0.2' }),
    );
    expect(await (await fetch(proxied, { headers: forwarded })).json()).toMatchObject({ ip: '203.0.113.7' });
  });

  it('calls the userId option only when the area asks, at most once per request', async () => {
    let calls = 0;
    const userId = async () => {
      calls++;
      return 'user-1';
    };
    const asking: FetchHandler = async (request, info) => {
      if (new URL(request.url).pathname !== '/authorize') return new Response('no user used');
      const [first, second] = [await userIdOf(info), await userIdOf(info)];
      return Response.json({ first, second });
    };
    const { url } = await listen(toNodeListener(asking, { userId }));
    await (await fetch(`${url}/token`, { method: 'POST', body: 'x' })).text();
    expect(calls).toBe(0);
    expect(await (await fetch(`${url}/authorize`)).json()).toEqual({ first: 'user-1', second: 'user-1' });
    expect(calls).toBe(1);
  });

  it('hands userId as a function, never resolved before fetch runs', async () => {
    let seen: FetchRequestInfo | undefined;
    const { url } = await listen(
      toNodeListener(
        async (_request, info) => {
          seen = info;
          return new Response(null, { status: 204 });
        },
        { userId: () => 'u' },
      ),
    );
    await fetch(url);
    expect(typeof seen?.userId).toBe('function');
  });
});

describe('the Host must be one well-formed host name: anything else is 421 before fetch runs', () => {
  it.each([
    ['two Host headers', (host: string) => `host: ${host}\r\nhost: ${host}\r\n`],
    ['a Host with spaces', () => 'host: bad host\r\n'],
    ['a Host with user information', (host: string) => `host: evil@${host}\r\n`],
    ['a list of hosts', (host: string) => `host: ${host}, evil.example\r\n`],
  ])('refuses %s with 421 and a warn line', async (_name, hostLines) => {
    let called = false;
    const { logger, lines } = recordingLogger();
    const { url } = await listen(
      toNodeListener(
        async () => {
          called = true;
          return new Response('no');
        },
        { logger },
      ),
    );
    const answer = await rawExchange(
      url,
      `GET /x HTTP/1.1\r\n${hostLines(new URL(url).host)}connection: close\r\n\r\n`,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 421 /);
    expect(answer).toContain('misdirected_request');
    expect(called).toBe(false);
    expect(lines.filter((line) => line.level === 'warn')).toHaveLength(1);
  });
});

describe('a throw from fetch is an answer, never a crash', () => {
  it('answers StorageUnavailableError with 503 + Retry-After and one warn line naming the component', async () => {
    const { logger, lines } = recordingLogger();
    const { url } = await listen(
      toNodeListener(
        async () => {
          throw new StorageUnavailableError('redis:sessions', { retryAfterSeconds: 9 });
        },
        { logger },
      ),
    );
    const answer = await fetch(`${url}/tenant/demo/token?secret=x`, { method: 'POST', body: 'a=1' });
    expect(answer.status).toBe(503);
    expect(answer.headers.get('retry-after')).toBe('9');
    expect(await answer.json()).toMatchObject({ error: 'temporarily_unavailable' });
    expect(lines).toEqual([
      {
        level: 'warn',
        fields: {
          event: 'storage_unavailable',
          component: 'redis:sessions',
          method: 'POST',
          path: '/tenant/demo/token',
        },
        message: 'storage unavailable: answered 503',
      },
    ]);
  });

  it('answers anything else with a generic 500 and an error line, and keeps serving', async () => {
    const { logger, lines } = recordingLogger();
    const { url } = await listen(
      toNodeListener(
        async () => {
          throw new Error('secret detail');
        },
        { logger },
      ),
    );
    const answer = await fetch(url);
    expect(answer.status).toBe(500);
    expect(await answer.text()).not.toContain('secret detail');
    expect(lines.filter((line) => line.level === 'error')).toHaveLength(1);
    expect((await fetch(url)).status).toBe(500);
  });

  it('answers 500 for a response header Node refuses to send', async () => {
    const { logger, lines } = recordingLogger();
    const { url } = await listen(
      toNodeListener(async () => new Response('x', { headers: { 'x-bad': 'a\u0001b' } }), { logger }),
    );
    const answer = await fetch(url);
    expect(answer.status).toBe(500);
    expect(answer.headers.get('x-bad')).toBeNull();
    expect(lines.filter((line) => line.level === 'error')).toHaveLength(1);
  });
});

describe('options are checked once, when the listener is created', () => {
  it.each([
    ['bodyTimeoutMs', { bodyTimeoutMs: 0 }],
    ['bodyTimeoutMs', { bodyTimeoutMs: 1.5 }],
    ['trustProxy', { trustProxy: 'yes' as unknown as boolean }],
    ['userId', { userId: 'user-1' as unknown as () => string }],
    ['logger', { logger: {} as never }],
  ])('a bad %s throws NodeAdapterError ERR_INVALID_OPTIONS', (name, options) => {
    let thrown: unknown;
    try {
      toNodeListener(echo, options);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(NodeAdapterError);
    expect(thrown).toMatchObject({ code: 'ERR_INVALID_OPTIONS' });
    expect((thrown as Error).message).toContain(name);
  });

  it('a target that is neither an area nor a fetch function throws too', () => {
    expect(() => toNodeListener({ fetch: echo } as unknown as Area)).toThrow(NodeAdapterError);
  });
});

describe('a one-chunk answer is written in one go with its Content-Length; a longer body is streamed', () => {
  it('sends a JSON answer with Content-Length, not chunked', async () => {
    const { url } = await listen(toNodeListener(async () => Response.json({ ok: true })));
    const answer = await rawExchange(url, 'GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
    const head = answer.slice(0, answer.indexOf('\r\n\r\n')).toLowerCase();
    expect(head).toContain('content-length: 11');
    expect(head).not.toContain('transfer-encoding');
    expect(answer.endsWith('{"ok":true}')).toBe(true);
  });

  it('streams a body of several chunks (chunked), in order and whole', async () => {
    const parts = ['one,', 'two,', 'three'];
    const { url } = await listen(
      toNodeListener(
        async () =>
          new Response(
            new ReadableStream<Uint8Array>({
              start(controller) {
                for (const part of parts) controller.enqueue(new TextEncoder().encode(part));
                controller.close();
              },
            }),
            { headers: { 'content-type': 'text/plain' } },
          ),
      ),
    );
    const answer = await fetch(url);
    expect(answer.headers.get('transfer-encoding')).toBe('chunked');
    expect(await answer.text()).toBe('one,two,three');
  });
});

describe("an area's raw handler is served without web objects, with what fetch would have had", () => {
  function rawArea(seen: RawRequest[], readBody = true): RawArea {
    return {
      fetch: async () => new Response('fetch was called', { status: 500 }),
      ownsPath: (path) => path.startsWith('/raw/'),
      [RAW_HANDLER]: () => async (request) => {
        seen.push(request);
        const body = readBody ? await request.readBody(1024) : '';
        return {
          status: 200,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            method: request.method,
            path: request.path,
            query: request.query,
            url: request.url,
            body,
            user: await userIdOf(request.info),
            ip: request.info.ip ?? null,
            parsedBody: request.info.parsedBody ?? null,
            auth: request.headers['authorization'] ?? null,
          }),
        };
      },
    };
  }

  it('passes method, path, query, URL, lower-cased headers, the body, the ip and the lazy user', async () => {
    const seen: RawRequest[] = [];
    const { url } = await listen(toNodeListener(rawArea(seen), { userId: () => 'alice' }));
    const answer = await fetch(`${url}/raw/token?x=1`, {
      method: 'POST',
      headers: { ...form, Authorization: 'Basic abc' },
      body: 'a=1',
    });
    expect(await answer.json()).toEqual({
      method: 'POST',
      path: '/raw/token',
      query: 'x=1',
      url: `${url}/raw/token?x=1`,
      body: 'a=1',
      user: 'alice',
      ip: '127.0.0.1',
      parsedBody: null,
      auth: 'Basic abc',
    });
  });

  it('refuses a body over the limit the handler asks for with 413 and closes the connection', async () => {
    const { url } = await listen(toNodeListener(rawArea([])));
    const answer = await fetch(`${url}/raw/token`, { method: 'POST', headers: form, body: 'x'.repeat(4096) });
    expect(answer.status).toBe(413);
  });

  it('closes the connection when the handler left a large body unread', async () => {
    const { url } = await listen(toNodeListener(rawArea([], false)));
    const answer = await rawExchange(
      url,
      `POST /raw/token HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain\r\nContent-Length: ${3 * 1024 * 1024}\r\n\r\nhello`,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    expect(answer.toLowerCase()).toContain('connection: close');
  });

  it('keeps the connection when a small unread body can be discarded, so the client reads the answer', async () => {
    const { url } = await listen(toNodeListener(rawArea([], false)));
    const first = await fetch(`${url}/raw/token`, {
      method: 'POST',
      headers: form,
      body: 'x'.repeat(64 * 1024),
    });
    expect(first.status).toBe(200);
    expect(first.headers.get('connection')).not.toBe('close');
    await first.text();
    expect((await fetch(`${url}/raw/token`, { method: 'POST', headers: form, body: 'a=1' })).status).toBe(
      200,
    );
  });

  it('uses a body express.json() parsed, as the body and as parsedBody', async () => {
    const app = express();
    app.use(express.json());
    app.use(toNodeListener(rawArea([])));
    const { url } = await listen(app);
    const answer = await fetch(`${url}/raw/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ a: 1 }),
    });
    expect(await answer.json()).toMatchObject({ body: '{"a":1}', parsedBody: { a: 1 } });
  });
});
