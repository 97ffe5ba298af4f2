import { createServer, type Server } from 'node:http';
import { toNodeListener } from '@keyhold/adapter-node';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildEndpoint,
  closeServer,
  exerciseLegacyEra,
  exerciseModernEra,
  expectBearerChallenge,
  listenOnLoopback,
  type MountedEndpoint,
} from './harness.js';

interface Mounting {
  server: Server;
  url: string;
  mounted: MountedEndpoint;
}

async function stop(mounting: Mounting | undefined): Promise<void> {
  if (mounting === undefined) return;
  await mounting.mounted.endpoint.close();
  await closeServer(mounting.server);
}

describe('mounting on Express 5 without body parsers', () => {
  let mounting: Mounting | undefined;

  beforeAll(async () => {
    let listener!: ReturnType<typeof toNodeListener>;
    const app = express();
    // The README recipe: the listener reads the body from the request stream itself, and a path the
    // endpoint does not own goes on to the app's routes.
    app.use((req, res, next) => listener(req, res, next));
    app.get('/health', (_req, res) => {
      res.json({ ok: true });
    });
    const server = createServer(app);
    const url = await listenOnLoopback(server);
    const mounted = buildEndpoint(url);
    listener = toNodeListener(mounted.endpoint);
    mounting = { server, url, mounted };
  });
  afterAll(() => stop(mounting));

  it('serves a 2026-07-28 client: list, echo, and the brokered tool through elicitation and retry', async () => {
    await exerciseModernEra(mounting!.url, mounting!.mounted);
  });

  it('serves a 2025-11-25 client: list, echo, and the brokered tool through -32042 and retry', async () => {
    await exerciseLegacyEra(mounting!.url, mounting!.mounted);
  });

  it('challenges a request without a token (RFC 6750 §3, RFC 9728 §5.1)', async () => {
    await expectBearerChallenge(mounting!.url);
  });

  it("leaves a path the endpoint does not own to the app's own routes", async () => {
    const response = await fetch(new URL('/health', mounting!.url));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true });
  });
});

describe('mounting on Express 5 behind global express.json() and express.urlencoded()', () => {
  let mounting: Mounting | undefined;
  /** Bodies the route saw already parsed: the stream was consumed, so only the third argument carries them. */
  const parsedMethods: string[] = [];

  beforeAll(async () => {
    let listener!: ReturnType<typeof toNodeListener>;
    const app = express();
    app.use(express.json());
    app.use(express.urlencoded({ extended: false }));
    // The README recipe: toNodeListener takes the body Express already parsed from `req.body`.
    app.use((req, res, next) => {
      const body = req.body as { method?: unknown } | undefined;
      if (typeof body?.method === 'string') parsedMethods.push(body.method);
      listener(req, res, next);
    });
    const server = createServer(app);
    const url = await listenOnLoopback(server);
    const mounted = buildEndpoint(url);
    listener = toNodeListener(mounted.endpoint);
    mounting = { server, url, mounted };
  });
  afterAll(() => stop(mounting));

  it('serves a 2026-07-28 client from the pre-parsed body', async () => {
    parsedMethods.length = 0;
    await exerciseModernEra(mounting!.url, mounting!.mounted);
    expect(parsedMethods).toContain('tools/list');
    expect(parsedMethods.filter((method) => method === 'tools/call').length).toBeGreaterThanOrEqual(3);
  });

  it('serves a 2025-11-25 client from the pre-parsed body, including the signed capability id', async () => {
    parsedMethods.length = 0;
    await exerciseLegacyEra(mounting!.url, mounting!.mounted);
    expect(parsedMethods).toContain('initialize');
    expect(parsedMethods).toContain('tools/call');
  });

  it('challenges a request without a token (RFC 6750 §3, RFC 9728 §5.1)', async () => {
    await expectBearerChallenge(mounting!.url);
  });
});

describe('mounting on an Express 5 Router under a path prefix', () => {
  let mounting: Mounting | undefined;

  beforeAll(async () => {
    let listener!: ReturnType<typeof toNodeListener>;
    const app = express();
    const router = express.Router();
    // A router sees `req.url` without its mount path; toNodeListener serves `req.originalUrl`, the full
    // path the public URL names.
    router.use((req, res, next) => listener(req, res, next));
    app.use('/tenant/demo', router);
    const server = createServer(app);
    const url = (await listenOnLoopback(server)).replace(/\/mcp$/, '/tenant/demo/mcp');
    const mounted = buildEndpoint(url);
    listener = toNodeListener(mounted.endpoint);
    mounting = { server, url, mounted };
  });
  afterAll(() => stop(mounting));

  it('serves a 2026-07-28 client at the full public path', async () => {
    await exerciseModernEra(mounting!.url, mounting!.mounted);
  });
});
