import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { toNodeListener } from '@keyhold/adapter-node';
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { type App, createApp } from '../../src/app.js';
import { moduleSourcePath, type Running, WEBHOOK_SECRET } from './runtimes.js';

export type FrameworkName = 'express' | 'fastify' | 'hono' | 'next-route';

/**
 * The same app as the runtime checks, mounted the way each framework's README recipe says, in this process:
 * Express 5 with global body parsers, Fastify 5 with its parsers off these routes, Hono 4, and a
 * Next.js-style route module (one exported function per method, each given the web Request).
 */
export async function startFramework(name: FrameworkName): Promise<Running> {
  let app: App | undefined;
  const fetch = (request: Request, info?: { ip?: string }) => app!.fetch(request, info);
  let origin: string;
  let stop: () => Promise<void>;
  if (name === 'express' || name === 'fastify') {
    let listen: (port: number) => Promise<AddressInfo>;
    if (name === 'express') {
      const application = express();
      application.use(express.json());
      application.use(express.urlencoded({ extended: false }));
      application.use(toNodeListener(fetch));
      const server = createServer(application);
      listen = (port) =>
        new Promise((resolve) =>
          server.listen(port, '127.0.0.1', () => resolve(server.address() as AddressInfo)),
        );
      stop = async () => {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      };
    } else {
      const fastify = Fastify();
      fastify.removeAllContentTypeParsers();
      fastify.addContentTypeParser('*', (_request, _payload, done) => done(null));
      const listener = toNodeListener(fetch);
      fastify.all('/*', (request, reply) => {
        reply.hijack();
        listener(request.raw, reply.raw);
      });
      listen = async (port) => {
        await fastify.listen({ port, host: '127.0.0.1' });
        return fastify.server.address() as AddressInfo;
      };
      stop = () => fastify.close();
    }
    origin = `http://127.0.0.1:${(await listen(0)).port}`;
  } else {
    let handler: (request: Request) => Response | Promise<Response>;
    if (name === 'hono') {
      const hono = new Hono();
      hono.all('*', (c) => fetch(c.req.raw));
      handler = hono.fetch;
    } else {
      const route: Record<string, (request: Request) => Promise<Response>> = {
        GET: (request) => fetch(request),
        POST: (request) => fetch(request),
        OPTIONS: (request) => fetch(request),
      };
      handler = (request) => route[request.method]?.(request) ?? new Response(null, { status: 405 });
    }
    const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
      const running = serve({ fetch: handler, port: 0, hostname: '127.0.0.1' }, () => resolve(running));
    });
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    stop = () => new Promise((resolve) => server.close(() => resolve()));
  }
  app = await createApp({ baseUrl: origin, webhookSecret: WEBHOOK_SECRET, moduleSourcePath });
  return { origin, output: () => '', stop };
}
