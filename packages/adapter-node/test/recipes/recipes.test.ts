// Every README recipe as a test: a real app of each framework with routes of its own, Keyhold (the
// authorization server and an MCP endpoint) mounted through the one adapter, driven over HTTP.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve as serveHono } from '@hono/node-server';
import type { Area } from '@keyhold/core';
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
import { toNodeListener } from '../../src/node-listener.js';
import { serve } from '../../src/serve.js';
import { createKeyhold, runClientFlow } from './keyhold.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/**
 * Keyhold for an app that learns its port only when it listens: `area` stands in until `start(origin)`
 * builds the real one (a deployed host knows its public URL up front).
 */
function lateKeyhold(): { area: Area; start(origin: string): Promise<void> } {
  let keyhold: Area | undefined;
  return {
    area: {
      fetch: (request, info) => keyhold!.fetch(request, info),
      ownsPath: (path) => keyhold!.ownsPath(path),
    },
    async start(origin) {
      const made = await createKeyhold(origin);
      keyhold = made.keyhold;
      closers.push(made.close);
    },
  };
}

async function listenOn(server: ReturnType<typeof createServer>): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function expectOwnRoutes(origin: string): Promise<void> {
  const login = await fetch(`${origin}/login`);
  expect(login.status).toBe(200);
  expect(await login.text()).toBe('the app’s login page');
  const saved = await fetch(`${origin}/notes`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ text: 'hi' }),
  });
  expect(saved.status).toBe(200);
  expect(await saved.json()).toEqual({ saved: { text: 'hi' } });
}

describe('recipe: Express 5 — app.use(toNodeListener(keyhold)) between the app’s own routes', () => {
  it('serves the whole flow, and the routes before and after the mount still answer', async () => {
    const { area: keyhold, start } = lateKeyhold();
    const app = express();
    app.get('/login', (_req, res) => {
      res.send('the app’s login page');
    });
    app.use(toNodeListener(keyhold));
    app.post('/notes', express.json(), (req, res) => {
      res.json({ saved: req.body });
    });
    const origin = await listenOn(createServer(app));
    await start(origin);
    await runClientFlow(origin);
    await expectOwnRoutes(origin);
  });
});

describe('recipe: Fastify 5 — an onRequest hook hands Keyhold’s paths to toNodeListener', () => {
  it('serves the whole flow, and Fastify’s own routes (with its body parsing) still answer', async () => {
    const { area: keyhold, start } = lateKeyhold();
    const app = Fastify();
    const listener = toNodeListener(keyhold);
    app.addHook('onRequest', (request, reply, done) => {
      if (!keyhold.ownsPath(request.url.split('?', 1)[0]!)) return done();
      // Before Fastify reads the body: Keyhold streams it itself.
      reply.hijack();
      listener(request.raw, reply.raw);
      done();
    });
    app.get('/login', async () => 'the app’s login page');
    app.post('/notes', async (request) => ({ saved: request.body }));
    await app.listen({ port: 0, host: '127.0.0.1' });
    closers.push(() => app.close());
    const origin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    await start(origin);
    await runClientFlow(origin);
    await expectOwnRoutes(origin);
  });
});

describe('recipe: Hono 4 on @hono/node-server — a middleware hands Keyhold’s paths to keyhold.fetch', () => {
  it('serves the whole flow, and Hono’s own routes still answer', async () => {
    const { area: keyhold, start } = lateKeyhold();
    const app = new Hono();
    app.get('/login', (c) => c.text('the app’s login page'));
    app.use((c, next) => (keyhold.ownsPath(c.req.path) ? keyhold.fetch(c.req.raw) : next()));
    app.post('/notes', async (c) => c.json({ saved: await c.req.json() }));
    const server = await new Promise<ReturnType<typeof serveHono>>((resolve) => {
      const running = serveHono({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(running));
    });
    closers.push(() => new Promise((resolve) => server.close(() => resolve())));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    await start(origin);
    await runClientFlow(origin);
    await expectOwnRoutes(origin);
  });
});

describe('recipe: a Next.js route handler — app/[...keyhold]/route.ts exports keyhold.fetch per method', () => {
  it('serves the whole flow through a node:http stand-in for Next’s router, next to the app’s own routes', async () => {
    const { area: keyhold, start } = lateKeyhold();
    // app/[...keyhold]/route.ts
    const handler = (request: Request) => keyhold.fetch(request);
    const keyholdRoute: Record<string, (request: Request) => Promise<Response>> = {
      GET: handler,
      POST: handler,
      OPTIONS: handler,
    };
    // app/login/route.ts and app/notes/route.ts
    const ownRoutes: Record<string, Record<string, (request: Request) => Promise<Response>>> = {
      '/login': { GET: async () => new Response('the app’s login page') },
      '/notes': { POST: async (request) => Response.json({ saved: await request.json() }) },
    };
    // Next's router: the most specific route file wins, the catch-all takes the rest.
    const next = async (request: Request): Promise<Response> => {
      const route = ownRoutes[new URL(request.url).pathname] ?? keyholdRoute;
      return route[request.method]?.(request) ?? new Response(null, { status: 405 });
    };
    const origin = await listenOn(createServer(toNodeListener(next)));
    await start(origin);
    await runClientFlow(origin);
    await expectOwnRoutes(origin);
  });
});

describe('recipe: node:http — serve(toNodeListener(keyhold)), the app’s own routes as the fall-through', () => {
  it('serves the whole flow behind serve()’s Host check, and the app’s routes answer what Keyhold does not own', async () => {
    const { area: keyhold, start } = lateKeyhold();
    const listener = toNodeListener(keyhold);
    const app = (req: IncomingMessage, res: ServerResponse): void => {
      if (req.method === 'GET' && req.url === '/login') {
        res.end('the app’s login page');
        return;
      }
      if (req.method === 'POST' && req.url === '/notes') {
        let body = '';
        req.setEncoding('utf8');
        req.on('data', (chunk: string) => {
          body += chunk;
        });
        req.on('end', () => {
          res.setHeader('content-type', 'application/json');
          res.end(JSON.stringify({ saved: JSON.parse(body) }));
        });
        return;
      }
      res.statusCode = 404;
      res.end();
    };
    const running = await serve((req, res) => listener(req, res, () => app(req, res)));
    closers.push(() => running.close());
    await start(running.url);
    await runClientFlow(running.url);
    await expectOwnRoutes(running.url);
  });
});
