import type { Server } from 'node:http';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { McpEndpoint } from '../../src/index.js';
import {
  buildEndpoint,
  closeServer,
  exerciseLegacyEra,
  exerciseModernEra,
  expectBearerChallenge,
  type MountedEndpoint,
} from './harness.js';

let server: Server;
let url: string;
let mounted: MountedEndpoint;

beforeAll(async () => {
  let endpoint!: McpEndpoint;
  const app = new Hono();
  // The README recipe: the endpoint is a web-standard fetch; hand it the raw Request.
  app.all('/mcp', (c) => endpoint.fetch(c.req.raw));
  const port = await new Promise<number>((resolve) => {
    server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) =>
      resolve(info.port),
    ) as Server;
  });
  url = `http://127.0.0.1:${port}/mcp`;
  mounted = buildEndpoint(url);
  endpoint = mounted.endpoint;
});

afterAll(async () => {
  await mounted.endpoint.close();
  await closeServer(server);
});

describe('mounting on Hono 4 with @hono/node-server (c.req.raw into endpoint.fetch)', () => {
  it('serves a 2026-07-28 client: list, echo, and the brokered tool through elicitation and retry', async () => {
    await exerciseModernEra(url, mounted);
  });

  it('serves a 2025-11-25 client: list, echo, and the brokered tool through -32042 and retry', async () => {
    await exerciseLegacyEra(url, mounted);
  });

  it('challenges a request without a token (RFC 6750 §3, RFC 9728 §5.1)', async () => {
    await expectBearerChallenge(url);
  });
});
