import { type Area, compose, createManualClock } from '@keyhold/core';
import { describe, expect, it } from 'vitest';
import { REDACTED } from '../src/metadata.js';
import { createWebhookHandlerWithHandle, type WebhookHandlerOptions } from '../src/webhook-handler.js';
import { billingModule, fixturePath, githubModule } from './fixtures/modules.js';
import { postJson, recordingLogger, serve } from './support/serve.js';

const SECRET = 'a-long-shared-secret-value-0123456789';
const RECEIVED_AT = Date.parse('2026-03-01T12:00:00.750Z');

async function serveWebhooks(options: Partial<WebhookHandlerOptions> = {}): Promise<string> {
  const handler = createWebhookHandlerWithHandle({
    modules: [githubModule(), billingModule()],
    clock: createManualClock(RECEIVED_AT),
    ...options,
  });
  return serve(handler);
}

describe('discovery: a method whose name starts with handle is exposed', () => {
  it('serves handle* methods at POST /webhook/<module>/<method>', async () => {
    const base = await serveWebhooks();
    const response = await postJson(`${base}/webhook/github/handleEcho`, { greeting: 'hi' });
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body.ok).toBe(true);
    expect(body.result.greeting).toBe('hi');
  });

  it('does not expose "handler" or untagged, unprefixed methods', async () => {
    const base = await serveWebhooks();
    for (const method of ['handler', 'helper', 'label', 'constructor']) {
      const response = await postJson(`${base}/webhook/github/${method}`, {});
      expect(response.status, method).toBe(404);
    }
  });

  it('stops exposing handle* methods when exposeHandlePrefix is false, keeping tagged ones', async () => {
    const base = await serveWebhooks({ exposeHandlePrefix: false });
    expect((await postJson(`${base}/webhook/github/handleEcho`, {})).status).toBe(404);
    expect((await postJson(`${base}/webhook/billing/handleInvoice`, {})).status).toBe(404);
    expect((await postJson(`${base}/webhook/github/sync`, {})).status).toBe(200);
    expect((await postJson(`${base}/webhook/github/github/push`, {})).status).toBe(200);
  });
});

describe('discovery: a method whose doc comment carries @webhook is exposed', () => {
  it('serves a bare @webhook tag under the method name', async () => {
    const base = await serveWebhooks();
    const response = await postJson(`${base}/webhook/github/sync`, {});
    expect(await response.json()).toEqual({ ok: true, result: 'synced' });
  });

  it('serves @webhook github/push at POST /webhook/<module>/github/push', async () => {
    const base = await serveWebhooks();
    const response = await postJson(`${base}/webhook/github/github/push`, { ref: 'refs/heads/main' });
    expect(await response.json()).toEqual({ ok: true, result: { ref: 'refs/heads/main' } });
    expect((await postJson(`${base}/webhook/github/onPush`, {})).status).toBe(404);
  });

  it('serves a custom path of four segments', async () => {
    const base = await serveWebhooks();
    const response = await postJson(`${base}/webhook/github/ci/builds/status/latest`, { state: 'green' });
    expect(await response.json()).toEqual({ ok: true, result: { state: 'green' } });
    expect((await postJson(`${base}/webhook/github/ci/builds/status`, {})).status).toBe(404);
  });

  it('reads tags from a JavaScript module written as an object literal', async () => {
    const base = await serveWebhooks();
    const event = await postJson(`${base}/webhook/billing/stripe/events`, { type: 'invoice.paid' });
    expect(await event.json()).toEqual({ ok: true, result: { type: 'invoice.paid' } });
    const arrow = await postJson(`${base}/webhook/billing/standard/events`, { event: 'e1' });
    expect(await arrow.json()).toEqual({ ok: true, result: { recorded: 'e1' } });
  });

  it('gives the tag precedence over the prefix: a tagged handle* method is served at its tag path only', async () => {
    const base = await serveWebhooks();
    const tagged = await postJson(`${base}/webhook/github/releases`, { tag: 'v1.0.0' });
    expect(await tagged.json()).toEqual({ ok: true, result: { tag: 'v1.0.0' } });
    expect((await postJson(`${base}/webhook/github/handleRelease`, {})).status).toBe(404);
  });

  it('matches percent-encoded segments by their decoded value', async () => {
    const base = await serveWebhooks();
    const response = await postJson(`${base}/webhook/github/%68andleEcho`, {});
    expect(response.status).toBe(200);
    expect((await postJson(`${base}/webhook/github/github%2Fpush`, {})).status).toBe(404);
  });
});

describe('responses: one JSON shape, 404 and 405', () => {
  it('answers 404 for an unknown module and an unknown method', async () => {
    const base = await serveWebhooks();
    for (const path of ['/webhook/gitlab/handleEcho', '/webhook/github/handleMissing', '/webhook/github']) {
      const response = await postJson(`${base}${path}`, {});
      expect(response.status, path).toBe(404);
      expect(await response.json()).toEqual({
        ok: false,
        error: 'not_found',
        error_description: 'no webhook at this path',
      });
    }
  });

  it('answers 405 with Allow: POST to another method on a webhook path', async () => {
    const base = await serveWebhooks();
    for (const method of ['GET', 'PUT', 'DELETE']) {
      const response = await fetch(`${base}/webhook/github/handleEcho`, { method });
      expect(response.status, method).toBe(405);
      expect(response.headers.get('allow')).toBe('POST');
      expect((await response.json()).error).toBe('method_not_allowed');
    }
  });

  it('answers a method that returns nothing with { ok: true } and no result', async () => {
    const base = await serveWebhooks();
    const response = await postJson(`${base}/webhook/github/handleNothing`, {});
    expect(await response.json()).toEqual({ ok: true });
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.headers.get('cache-control')).toBe('no-store');
  });

  it('answers 500 with a generic body when the method throws, and logs the error', async () => {
    const logger = recordingLogger();
    const base = await serveWebhooks({ logger });
    const response = await postJson(`${base}/webhook/github/handleFailure`, {});
    expect(response.status).toBe(500);
    const text = await response.text();
    expect(JSON.parse(text)).toEqual({
      ok: false,
      error: 'server_error',
      error_description: 'the webhook method failed',
    });
    expect(text).not.toMatch(/hunter2|at GitHubModule|\.ts:/);
    const line = logger.lines.find((l) => l.level === 'error');
    expect(line?.fields).toMatchObject({
      toolModuleId: 'github',
      method: 'handleFailure',
      route: 'github/handleFailure',
    });
    expect(String(line?.fields['err'])).toContain('hunter2');
  });

  it('answers 500 when the result cannot be serialised as JSON, and logs it', async () => {
    const logger = recordingLogger();
    const handler = createWebhookHandlerWithHandle({
      modules: [
        {
          toolModuleId: 'odd',
          displayName: 'Odd',
          sourcePath: fixturePath('modules.ts'),
          instance: { handleBig: async () => ({ big: 10n }) },
        },
      ],
      logger,
    });
    const response = await postJson(`${await serve(handler)}/webhook/odd/handleBig`, {});
    expect(response.status).toBe(500);
    expect((await response.json()).error).toBe('server_error');
    expect(logger.lines.some((line) => line.level === 'error' && line.fields['method'] === 'handleBig')).toBe(
      true,
    );
  });

  it('keeps serving after a method threw', async () => {
    const base = await serveWebhooks();
    await postJson(`${base}/webhook/github/handleFailure`, {});
    expect((await postJson(`${base}/webhook/github/sync`, {})).status).toBe(200);
  });
});

describe('a web page cannot forge a delivery (webhook senders are servers: no Origin, no Sec-Fetch-Site)', () => {
  const post = (url: string, headers: Record<string, string>) =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: 'greeting=planted',
    });

  it('answers 403 to a foreign Origin or a cross-site browser request, before the method runs', async () => {
    const base = await serveWebhooks();
    for (const headers of [
      { origin: 'https://evil.example' } as Record<string, string>,
      { origin: 'null' },
      { 'sec-fetch-site': 'cross-site' },
    ]) {
      const response = await post(`${base}/webhook/github/handleEcho`, headers);
      expect(response.status, JSON.stringify(headers)).toBe(403);
      expect(await response.json()).toMatchObject({ ok: false, error: 'forbidden' });
    }
  });

  it('serves server senders and listed browser origins', async () => {
    const base = await serveWebhooks({ allowedOrigins: ['https://console.example'] });
    expect((await post(`${base}/webhook/github/handleEcho`, {})).status).toBe(200);
    expect(
      (await post(`${base}/webhook/github/handleEcho`, { origin: 'https://console.example' })).status,
    ).toBe(200);
    expect(
      (await post(`${base}/webhook/github/handleEcho`, { 'sec-fetch-site': 'same-origin' })).status,
    ).toBe(200);
  });
});

describe('request bodies: JSON object or form, within the limit', () => {
  it('accepts an application/x-www-form-urlencoded body as string parameters', async () => {
    const base = await serveWebhooks();
    const response = await fetch(`${base}/webhook/github/handleEcho`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'ref=refs%2Fheads%2Fmain&count=2',
    });
    const body = await response.json();
    expect(body.result).toMatchObject({ ref: 'refs/heads/main', count: '2' });
  });

  it('accepts a +json media type and a charset parameter', async () => {
    const base = await serveWebhooks();
    const response = await fetch(`${base}/webhook/github/handleEcho`, {
      method: 'POST',
      headers: { 'content-type': 'application/vnd.github+json; charset=utf-8' },
      body: '{"a":1}',
    });
    expect((await response.json()).result.a).toBe(1);
  });

  it('treats an empty body as no parameters', async () => {
    const base = await serveWebhooks();
    const response = await fetch(`${base}/webhook/github/github/push`, { method: 'POST' });
    expect(await response.json()).toEqual({ ok: true, result: {} });
  });

  it('answers 415 to an unsupported or missing content type', async () => {
    const base = await serveWebhooks();
    const plain = await fetch(`${base}/webhook/github/handleEcho`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'hello',
    });
    expect(plain.status).toBe(415);
    expect((await plain.json()).error).toBe('unsupported_media_type');
    const none = await fetch(`${base}/webhook/github/handleEcho`, {
      method: 'POST',
      body: new Blob(['{"a":1}']),
    });
    expect(none.status).toBe(415);
  });

  it('answers 400 to malformed JSON', async () => {
    const base = await serveWebhooks();
    const response = await postJson(`${base}/webhook/github/handleEcho`, '{"a":');
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      ok: false,
      error: 'invalid_request',
      error_description: 'the body is not valid JSON',
    });
  });

  it('answers 400 to a JSON body that is not an object', async () => {
    const base = await serveWebhooks();
    for (const body of ['[1,2]', '"text"', '42', 'null']) {
      const response = await postJson(`${base}/webhook/github/handleEcho`, body);
      expect(response.status, body).toBe(400);
    }
  });

  it('answers 400 to a repeated form parameter', async () => {
    const base = await serveWebhooks();
    const response = await fetch(`${base}/webhook/github/handleEcho`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'a=1&a=2',
    });
    expect(response.status).toBe(400);
  });

  it('answers 413 to a body over the 1 MiB default, independently of the adapter limit', async () => {
    const base = await serveWebhooks();
    const exactly = JSON.stringify({ pad: 'x'.repeat(1024 * 1024 - 10) });
    expect(exactly.length).toBe(1024 * 1024);
    expect((await postJson(`${base}/webhook/github/handleNothing`, exactly)).status).toBe(200);
    const over = JSON.stringify({ pad: 'x'.repeat(1024 * 1024 - 9) });
    const response = await postJson(`${base}/webhook/github/handleNothing`, over);
    expect(response.status).toBe(413);
    expect((await response.json()).error).toBe('payload_too_large');
  });

  it('counts the limit in UTF-8 bytes and honours bodyLimitBytes', async () => {
    const base = await serveWebhooks({ bodyLimitBytes: 20 });
    // 8 characters of 3 bytes each: 11 UTF-16 units but 29 bytes.
    expect((await postJson(`${base}/webhook/github/handleNothing`, { a: '€€€€€€€€' })).status).toBe(413);
    expect((await postJson(`${base}/webhook/github/handleNothing`, { a: 'ok' })).status).toBe(200);
  });
});

describe('_webhook metadata', () => {
  it('passes the body fields plus method, headers, query and the Unix time of receipt', async () => {
    const base = await serveWebhooks();
    const response = await postJson(
      `${base}/webhook/github/handleEcho?delivery=42&source=ci`,
      { ref: 'main' },
      {
        'x-github-event': 'push',
      },
    );
    const { result } = await response.json();
    expect(result.ref).toBe('main');
    expect(result._webhook.method).toBe('POST');
    expect(result._webhook.query).toEqual({ delivery: '42', source: 'ci' });
    expect(result._webhook.timestamp).toBe(Math.floor(RECEIVED_AT / 1000));
    expect(result._webhook.headers['x-github-event']).toBe('push');
    expect(result._webhook.headers['content-type']).toBe('application/json');
  });

  it('passes query parameters without mixing them into the body fields', async () => {
    const base = await serveWebhooks();
    const { result } = await (await postJson(`${base}/webhook/github/handleEcho?ref=query`, {})).json();
    expect(result.ref).toBeUndefined();
    expect(result._webhook.query.ref).toBe('query');
  });

  it('answers 400 to a repeated query parameter', async () => {
    const base = await serveWebhooks();
    expect((await postJson(`${base}/webhook/github/handleEcho?a=1&a=2`, {})).status).toBe(400);
  });

  it('drops _webhook, __proto__, constructor and prototype keys sent in the body', async () => {
    const base = await serveWebhooks();
    const body =
      '{"keep":1,"_webhook":{"method":"GET","timestamp":0},"__proto__":{"polluted":true},' +
      '"constructor":{"prototype":{"polluted":true}},"prototype":2,' +
      '"nested":{"__proto__":{"polluted":true},"constructor":1,"ok":true},"\\u005f_proto__":{"polluted":true}}';
    const { result } = await (await postJson(`${base}/webhook/github/handleEcho`, body)).json();
    expect(Object.keys(result).sort()).toEqual(['_webhook', 'keep', 'nested']);
    expect(result.nested).toEqual({ ok: true });
    expect(result._webhook.method).toBe('POST');
    expect(result._webhook.timestamp).toBe(Math.floor(RECEIVED_AT / 1000));
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('drops the same keys from a form body', async () => {
    const base = await serveWebhooks();
    const response = await fetch(`${base}/webhook/github/handleEcho`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'keep=1&__proto__=x&constructor=y&prototype=z&_webhook=w',
    });
    const { result } = await response.json();
    expect(Object.keys(result).sort()).toEqual(['_webhook', 'keep']);
    expect(typeof result._webhook).toBe('object');
  });

  it('redacts secret-bearing headers from _webhook.headers', async () => {
    const base = await serveWebhooks({ secret: SECRET });
    const response = await postJson(
      `${base}/webhook/github/handleEcho`,
      {},
      {
        'x-webhook-secret': SECRET,
        authorization: 'Bearer tok_live_123',
        cookie: 'sid=s3cr3t',
        'x-hub-signature-256': 'sha256=00',
        'stripe-signature': 't=1,v1=00',
        'webhook-signature': 'v1,AA==',
        'x-request-id': 'req-1',
      },
    );
    const text = await response.text();
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain('tok_live_123');
    expect(text).not.toContain('s3cr3t');
    const headers = JSON.parse(text).result._webhook.headers;
    for (const name of [
      'x-webhook-secret',
      'authorization',
      'cookie',
      'x-hub-signature-256',
      'stripe-signature',
      'webhook-signature',
    ]) {
      expect(headers[name], name).toBe(REDACTED);
    }
    expect(headers['x-request-id']).toBe('req-1');
  });

  it('redacts the header names the host lists, in any case', async () => {
    const base = await serveWebhooks({ redactHeaders: ['X-Internal-Token'] });
    const response = await postJson(`${base}/webhook/github/handleEcho`, {}, { 'x-internal-token': 'abc' });
    expect((await response.json()).result._webhook.headers['x-internal-token']).toBe(REDACTED);
  });
});

describe('authentication: SVC_WEBHOOK_SECRET', () => {
  it('answers 401 when the secret is set and X-Webhook-Secret is missing', async () => {
    const base = await serveWebhooks({ secret: SECRET });
    const response = await postJson(`${base}/webhook/github/handleEcho`, {});
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({
      ok: false,
      error: 'unauthorized',
      error_description: 'a valid X-Webhook-Secret header is required',
    });
  });

  it('answers 401 when X-Webhook-Secret is wrong, a prefix of, or longer than the secret', async () => {
    const base = await serveWebhooks({ secret: SECRET });
    for (const presented of ['wrong', SECRET.slice(0, -1), `${SECRET}x`, SECRET.toUpperCase()]) {
      const response = await postJson(
        `${base}/webhook/github/handleEcho`,
        {},
        { 'x-webhook-secret': presented },
      );
      expect(response.status, presented).toBe(401);
    }
  });

  it('refuses before reading the body: a malformed body without the secret is a 401, not a 400', async () => {
    const base = await serveWebhooks({ secret: SECRET });
    expect((await postJson(`${base}/webhook/github/handleEcho`, '{"a":')).status).toBe(401);
    expect(
      (await postJson(`${base}/webhook/github/handleEcho`, '{"a":', { 'x-webhook-secret': SECRET })).status,
    ).toBe(400);
  });

  it('calls the method when X-Webhook-Secret equals the secret', async () => {
    const base = await serveWebhooks({ secret: SECRET });
    const response = await postJson(`${base}/webhook/github/sync`, {}, { 'x-webhook-secret': SECRET });
    expect(await response.json()).toEqual({ ok: true, result: 'synced' });
  });

  it('requires the secret on every endpoint, and before revealing whether a path exists', async () => {
    const base = await serveWebhooks({ secret: SECRET });
    for (const path of ['/webhook/github/github/push', '/webhook/billing/handleInvoice', '/webhook/nope/x']) {
      expect((await postJson(`${base}${path}`, {})).status, path).toBe(401);
    }
    expect((await postJson(`${base}/webhook/nope/x`, {}, { 'x-webhook-secret': SECRET })).status).toBe(404);
  });

  it('requires nothing when the secret is unset, and warns once at creation', async () => {
    const logger = recordingLogger();
    const base = await serveWebhooks({ logger });
    expect(logger.lines.filter((l) => l.level === 'warn')).toHaveLength(1);
    expect(logger.lines[0]?.message).toContain('SVC_WEBHOOK_SECRET');
    expect((await postJson(`${base}/webhook/github/sync`, {})).status).toBe(200);
    expect((await postJson(`${base}/webhook/github/sync`, {})).status).toBe(200);
    expect(logger.lines.filter((l) => l.level === 'warn')).toHaveLength(1);
  });

  it('does not warn when a secret is configured', () => {
    const logger = recordingLogger();
    createWebhookHandlerWithHandle({ modules: [githubModule()], secret: SECRET, logger });
    expect(logger.lines.filter((l) => l.level === 'warn')).toHaveLength(0);
  });
});

describe('mounting: the host composes the handler at /webhook/* with its own routes', () => {
  it('serves webhooks next to the host’s other routes, composed with compose()', async () => {
    const webhooks = createWebhookHandlerWithHandle({ modules: [githubModule()] });
    const health: Area = {
      ownsPath: (path) => path === '/health',
      fetch: async () => new Response('ok'),
    };
    const base = await serve(compose(health, webhooks));
    expect((await fetch(`${base}/health`)).status).toBe(200);
    expect((await postJson(`${base}/webhook/github/sync`, {})).status).toBe(200);
    const wrongMethod = await fetch(`${base}/webhook/github/sync`, { method: 'PUT' });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('POST');
  });

  it('honours a custom basePath', async () => {
    const base = await serveWebhooks({ basePath: '/hooks/' });
    expect((await postJson(`${base}/hooks/github/sync`, {})).status).toBe(200);
    expect((await postJson(`${base}/webhook/github/sync`, {})).status).toBe(404);
  });

  it('lists the routes it serves', () => {
    const webhooks = createWebhookHandlerWithHandle({ modules: [githubModule()] });
    expect(webhooks.routes.map((route) => `${route.key} ${route.source}`).sort()).toEqual([
      'github/ci/builds/status/latest webhook-tag',
      'github/github/push webhook-tag',
      'github/handleEcho handle-prefix',
      'github/handleFailure handle-prefix',
      'github/handleNothing handle-prefix',
      'github/releases webhook-tag',
      'github/sync webhook-tag',
    ]);
  });
});
