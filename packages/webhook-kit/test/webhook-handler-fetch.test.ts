import { createManualClock } from '@keyhold/core';
import { describe, expect, it } from 'vitest';
import { createWebhookHandler } from '../src/index.js';
import { createWebhookHandlerWithHandle, type WebhookHandlerOptions } from '../src/webhook-handler.js';
import { billingModule, githubModule } from './fixtures/modules.js';
import { recordingLogger } from './support/serve.js';

const SECRET = 'a-long-shared-secret-value-0123456789';
const origin = 'https://hooks.example';

function webhooks(options: Partial<WebhookHandlerOptions> = {}) {
  return createWebhookHandlerWithHandle({
    modules: [githubModule(), billingModule()],
    clock: createManualClock(Date.parse('2026-03-01T12:00:00Z')),
    secret: SECRET,
    ...options,
  });
}

function post(path: string, body: string, headers: Record<string, string> = {}): Request {
  return new Request(`${origin}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-webhook-secret': SECRET, ...headers },
    body,
  });
}

describe('createWebhookHandler(...).fetch: the handler as a web-standard fetch', () => {
  it('calls a handle* method with the JSON body and answers { ok: true, result }', async () => {
    const response = await webhooks().fetch(post('/webhook/github/handleEcho', '{"greeting":"hi"}'));
    expect(response.status).toBe(200);
    const body = (await response.json()) as { ok: boolean; result: { greeting: string } };
    expect(body.ok).toBe(true);
    expect(body.result.greeting).toBe('hi');
  });

  it('serves a route found by its @webhook doc comment', async () => {
    const response = await webhooks().fetch(post('/webhook/github/github/push', '{"ref":"refs/heads/main"}'));
    expect(await response.json()).toEqual({ ok: true, result: { ref: 'refs/heads/main' } });
  });

  it('refuses a request without the shared secret with 401', async () => {
    const response = await webhooks().fetch(
      new Request(`${origin}/webhook/github/handleEcho`, { method: 'POST', body: '{}' }),
    );
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ ok: false, error: 'unauthorized' });
  });

  it('answers 405 with Allow: POST for a GET on a route', async () => {
    const response = await webhooks().fetch(
      new Request(`${origin}/webhook/github/handleEcho`, { headers: { 'x-webhook-secret': SECRET } }),
    );
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
  });

  it('owns only the paths under its base path: 404 elsewhere, routes under a custom basePath', async () => {
    expect((await webhooks().fetch(post('/api/providers', '{}'))).status).toBe(404);
    const mounted = webhooks({ basePath: '/hooks/v1' });
    expect((await mounted.fetch(post('/webhook/github/handleEcho', '{}'))).status).toBe(404);
    expect((await mounted.fetch(post('/hooks/v1/github/handleEcho', '{}'))).status).toBe(200);
  });

  it('refuses a body over bodyLimitBytes with 413 while reading it (multi-byte text counted in bytes)', async () => {
    const handler = webhooks({ bodyLimitBytes: 64 });
    const streamed = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(`{"text":"${'é'.repeat(40)}"}`));
        controller.close();
      },
    });
    const response = await handler.fetch(
      new Request(`${origin}/webhook/github/handleEcho`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-webhook-secret': SECRET },
        body: streamed,
        duplex: 'half',
      } as RequestInit),
    );
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ ok: false, error: 'payload_too_large' });
  });

  it('passes info.ip to the handler (the refusal log line names it) and keeps the Handler call working', async () => {
    const logger = recordingLogger();
    const handler = webhooks({ logger });
    const wrong = post('/webhook/github/handleEcho', '{}', { 'x-webhook-secret': 'wrong' });
    expect((await handler.fetch(wrong, { ip: '203.0.113.7' })).status).toBe(401);
    const line = logger.lines.find((entry) => entry.message?.includes('X-Webhook-Secret'));
    expect(line?.fields).toMatchObject({ ip: '203.0.113.7' });
    const result = await handler({
      method: 'POST',
      path: '/webhook/github/handleEcho',
      query: '',
      headers: { 'content-type': 'application/json', 'x-webhook-secret': SECRET },
      body: '{}',
    });
    expect(result.status).toBe(200);
  });
});

describe('createWebhookHandler: a plain area object, ownsPath exactly the paths fetch serves', () => {
  it('is not callable and has routes, fetch and ownsPath', () => {
    const area = createWebhookHandler({ modules: [githubModule()] });
    expect([typeof area, typeof area.fetch, typeof area.ownsPath, area.routes.length > 0]).toEqual([
      'object',
      'function',
      'function',
      true,
    ]);
  });

  it('owns every path under the base path (an unknown one gets its own 404) and no other path', async () => {
    for (const [basePath, prefix] of [
      [undefined, '/webhook/'],
      ['/hooks/v1', '/hooks/v1/'],
    ] as const) {
      const area = createWebhookHandler({ modules: [githubModule()], ...(basePath ? { basePath } : {}) });
      const paths = [
        '/webhook/github/handleEcho',
        '/webhook/',
        '/webhook',
        '/hooks/v1/x',
        '/hooks/v1',
        '/api/x',
        '/',
      ];
      for (const path of paths) {
        expect([path, area.ownsPath(path)]).toEqual([path, path.startsWith(prefix)]);
        const response = await area.fetch(new Request(`${origin}${path}`, { method: 'GET' }));
        if (!area.ownsPath(path)) expect([path, response.status]).toEqual([path, 404]);
      }
      const route = `${prefix}github/handleEcho`;
      expect((await area.fetch(new Request(`${origin}${route}`, { method: 'GET' }))).status).toBe(405);
    }
  });
});
