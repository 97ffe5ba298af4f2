import { toNodeListener } from '@keyhold/adapter-node';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

beforeAll(async () => {
  let listener!: ReturnType<typeof toNodeListener>;
  app = Fastify();
  // The README recipe: hand the endpoint's paths over in an `onRequest` hook, before Fastify parses the body;
  // every other path stays Fastify's.
  app.addHook('onRequest', (request, reply, done) => {
    if (!mounted.endpoint.ownsPath(request.url.split('?', 1)[0] ?? '/')) return done();
    reply.hijack();
    listener(request.raw, reply.raw);
    done();
  });
  app.get('/health', async () => ({ ok: true }));
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  url = `${address}/mcp`;
  mounted = buildEndpoint(url);
  listener = toNodeListener(mounted.endpoint);
});

afterAll(async () => {
  await mounted.endpoint.close();
  await app.close();
});

describe('mounting on Fastify 5 (onRequest hook, reply.hijack(), req.raw, reply.raw)', () => {
  it('serves a 2026-07-28 client: list, echo, and the brokered tool through elicitation and retry', async () => {
    await exerciseModernEra(url, mounted);
  });

  it('serves a 2025-11-25 client: list, echo, and the brokered tool through -32042 and retry', async () => {
    await exerciseLegacyEra(url, mounted);
  });

  it('challenges a request without a token (RFC 6750 §3, RFC 9728 §5.1)', async () => {
    await expectBearerChallenge(url);
  });

  it("leaves a path the endpoint does not own to Fastify's own routes", async () => {
    const response = await fetch(new URL('/health', url));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true });
  });
});
