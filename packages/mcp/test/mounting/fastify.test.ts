import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toMcpNodeListener } from '../../src/node.js';
import {
  buildEndpoint,
  exerciseLegacyEra,
  exerciseModernEra,
  expectBearerChallenge,
  type MountedEndpoint,
} from './harness.js';

let app: FastifyInstance;
let url: string;
let mounted: MountedEndpoint;
/** Bodies Fastify's own JSON parser had parsed before the route ran. */
const parsedMethods: string[] = [];

beforeAll(async () => {
  let listener!: ReturnType<typeof toMcpNodeListener>;
  app = Fastify();
  // The README recipe: Fastify parses JSON itself; hijack the reply and hand the raw pair plus the body over.
  app.all('/mcp', async (req, reply) => {
    const body = req.body as { method?: unknown } | undefined;
    if (typeof body?.method === 'string') parsedMethods.push(body.method);
    reply.hijack();
    await listener(req.raw, reply.raw, req.body);
  });
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  url = `${address}/mcp`;
  mounted = buildEndpoint(url);
  listener = toMcpNodeListener(mounted.endpoint);
});

afterAll(async () => {
  await mounted.endpoint.close();
  await app.close();
});

describe('mounting on Fastify 5 (reply.hijack(), req.raw, reply.raw, req.body)', () => {
  it('serves a 2026-07-28 client: list, echo, and the brokered tool through elicitation and retry', async () => {
    parsedMethods.length = 0;
    await exerciseModernEra(url, mounted);
    expect(parsedMethods).toContain('tools/call');
  });

  it('serves a 2025-11-25 client: list, echo, and the brokered tool through -32042 and retry', async () => {
    parsedMethods.length = 0;
    await exerciseLegacyEra(url, mounted);
    expect(parsedMethods).toContain('initialize');
  });

  it('challenges a request without a token (RFC 6750 §3, RFC 9728 §5.1)', async () => {
    await expectBearerChallenge(url);
  });
});
