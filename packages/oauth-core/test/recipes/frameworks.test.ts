// Every README recipe for mounting the authorization server, as a test: a real app of each framework,
// driven over HTTP through discovery → registration → authorization → consent → token → introspection.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { toNodeListener } from '@keyhold/adapter-node';
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { afterEach, describe, it } from 'vitest';
import type { AuthorizationServer } from '../../src/index.js';
import { recipeServer, runFlow } from './flow.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** Listens on a free loopback port first, so the issuer can name the port the server really has. */
async function listenNode(make: (server: () => AuthorizationServer) => Server): Promise<string> {
  let oauth: AuthorizationServer | undefined;
  const server = make(() => oauth!);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  oauth = await recipeServer(origin);
  closers.push(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return origin;
}

describe('recipe: node:http', () => {
  it('createServer(toNodeListener(server.fetch)) serves the whole flow', async () => {
    const origin = await listenNode((oauth) =>
      createServer((req, res) => toNodeListener(oauth().fetch)(req, res)),
    );
    await runFlow(origin);
  });
});

describe('recipe: Express 5, with global body parsers', () => {
  it('app.use(toNodeListener(server.fetch)) after express.json() and express.urlencoded() serves the whole flow', async () => {
    const origin = await listenNode((oauth) => {
      const app = express();
      app.use(express.json());
      app.use(express.urlencoded({ extended: false }));
      app.use((req, res) => toNodeListener(oauth().fetch)(req, res));
      return createServer(app);
    });
    await runFlow(origin);
  });
});

describe('recipe: Fastify 5', () => {
  it('a catch-all route hands the raw request to toNodeListener, with Fastify body parsing off', async () => {
    const app = Fastify();
    let oauth: AuthorizationServer | undefined;
    // Keyhold reads the body itself: keep Fastify's parsers away from the stream.
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', (_request, _payload, done) => done(null));
    app.all('/*', (request, reply) => {
      reply.hijack();
      toNodeListener(oauth!.fetch)(request.raw, reply.raw);
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    closers.push(() => app.close());
    const origin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    oauth = await recipeServer(origin);
    await runFlow(origin);
  });
});

async function listenFetch(
  make: (oauth: () => AuthorizationServer) => (request: Request) => Response | Promise<Response>,
): Promise<string> {
  let oauth: AuthorizationServer | undefined;
  const fetch = make(() => oauth!);
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const running = serve({ fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(running));
  });
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  oauth = await recipeServer(origin);
  closers.push(() => new Promise((resolve) => server.close(() => resolve())));
  return origin;
}

describe('recipe: Hono 4', () => {
  it("app.all('*', (c) => server.fetch(c.req.raw)) serves the whole flow", async () => {
    const origin = await listenFetch((oauth) => {
      const app = new Hono();
      app.all('*', (c) => oauth().fetch(c.req.raw));
      return app.fetch;
    });
    await runFlow(origin);
  });
});

describe('recipe: a Next.js-style route handler (app/[...path]/route.ts)', () => {
  it('export const GET = POST = OPTIONS = (request) => server.fetch(request) serves the whole flow', async () => {
    const origin = await listenFetch((oauth) => {
      // What Next.js calls: one exported function per method, each given the web Request.
      const handler = (request: Request) => oauth().fetch(request);
      const route: Record<string, (request: Request) => Promise<Response>> = {
        GET: handler,
        POST: handler,
        OPTIONS: handler,
      };
      return (request) => route[request.method]?.(request) ?? new Response(null, { status: 405 });
    });
    await runFlow(origin);
  });
});
