import { createServer, type Server } from 'node:http';
import { toNodeListener } from '@keyhold/adapter-node';
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

let server: Server;
let url: string;
let mounted: MountedEndpoint;

beforeAll(async () => {
  let listener!: ReturnType<typeof toNodeListener>;
  // The README recipe: the listener is the whole request handler.
  server = createServer((req, res) => void listener(req, res));
  url = await listenOnLoopback(server);
  mounted = buildEndpoint(url);
  listener = toNodeListener(mounted.endpoint);
});

afterAll(async () => {
  await mounted.endpoint.close();
  await closeServer(server);
});

describe('mounting on node:http through toNodeListener (@keyhold/adapter-node)', () => {
  it('serves a 2026-07-28 client: list, echo, and the brokered tool through elicitation and retry', async () => {
    await exerciseModernEra(url, mounted);
  });

  it('serves a 2025-11-25 client: list, echo, and the brokered tool through -32042 and retry', async () => {
    await exerciseLegacyEra(url, mounted);
  });

  it('challenges a request without a token (RFC 6750 §3, RFC 9728 §5.1)', async () => {
    await expectBearerChallenge(url);
  });

  it('answers GET and DELETE 405 in stateless legacy serving (no standalone stream, no session to end)', async () => {
    for (const method of ['GET', 'DELETE']) {
      const response = await fetch(url, {
        method,
        headers: {
          authorization: 'Bearer alice-token',
          accept: 'text/event-stream',
          'mcp-protocol-version': '2025-11-25',
        },
      });
      expect(response.status).toBe(405);
      await response.body?.cancel();
    }
  });
});
