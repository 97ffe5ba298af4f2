import { createServer, type Server } from 'node:http';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toMcpNodeListener } from '../../src/node.js';
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
    let listener!: ReturnType<typeof toMcpNodeListener>;
    const app = express();
    // The README recipe: the listener reads the body from the request stream itself.
    app.all('/mcp', (req, res) => listener(req, res));
    const server = createServer(app);
    const url = await listenOnLoopback(server);
    const mounted = buildEndpoint(url);
    listener = toMcpNodeListener(mounted.endpoint);
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
});

describe('mounting on Express 5 behind global express.json() and express.urlencoded()', () => {
  let mounting: Mounting | undefined;
  /** Bodies the route saw already parsed: the stream was consumed, so only the third argument carries them. */
  const parsedMethods: string[] = [];

  beforeAll(async () => {
    let listener!: ReturnType<typeof toMcpNodeListener>;
    const app = express();
    app.use(express.json());
    app.use(express.urlencoded({ extended: false }));
    // The README recipe: hand the parsed body over as the third argument.
    app.all('/mcp', (req, res) => {
      const body = req.body as { method?: unknown } | undefined;
      if (typeof body?.method === 'string') parsedMethods.push(body.method);
      return listener(req, res, req.body);
    });
    const server = createServer(app);
    const url = await listenOnLoopback(server);
    const mounted = buildEndpoint(url);
    listener = toMcpNodeListener(mounted.endpoint);
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
    let listener!: ReturnType<typeof toMcpNodeListener>;
    const app = express();
    const router = express.Router();
    // A router sees `req.url` without its mount path; toMcpNodeListener serves `req.originalUrl`, the full
    // path the public URL names.
    router.all('/mcp', (req, res) => listener(req, res));
    app.use('/tenant/demo', router);
    const server = createServer(app);
    const url = (await listenOnLoopback(server)).replace(/\/mcp$/, '/tenant/demo/mcp');
    const mounted = buildEndpoint(url);
    listener = toMcpNodeListener(mounted.endpoint);
    mounting = { server, url, mounted };
  });
  afterAll(() => stop(mounting));

  it('serves a 2026-07-28 client at the full public path', async () => {
    await exerciseModernEra(mounting!.url, mounting!.mounted);
  });
});
