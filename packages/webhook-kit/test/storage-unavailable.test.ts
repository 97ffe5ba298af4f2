import { randomBytes } from 'node:crypto';
import { createManualClock, createMemoryOnceStore, StorageUnavailableError } from '@keyhold/core';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { createWebhookHandlerWithHandle } from '../src/webhook-handler.js';
import { recordingModule } from './support/recording-module.js';
import { postJson, recordingLogger, serve } from './support/serve.js';

const clock = createManualClock(Date.parse('2026-04-01T08:00:00Z'));
const SIGNING_SECRET = `whsec_${randomBytes(32).toString('base64')}`;

function signed(payload: string, id: string): RequestInit {
  const sentAt = new Date(clock.now());
  return {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
      'webhook-signature': new Webhook(SIGNING_SECRET).sign(id, sentAt, payload),
    },
    body: payload,
  };
}

async function expectServiceUnavailable(response: Response): Promise<void> {
  expect(response.status).toBe(503);
  expect(response.headers.get('retry-after')).toBe('4');
  expect(response.headers.get('cache-control')).toBe('no-store');
  expect(await response.json()).toEqual({
    ok: false,
    error: 'temporarily_unavailable',
    error_description: 'the service is temporarily unavailable',
  });
}

describe('outage: a webhook whose storage is down answers 503 with Retry-After, so the sender retries', () => {
  it('the replay cache down: 503, one warn line naming the component, the method not called', async () => {
    const module = recordingModule();
    const logger = recordingLogger();
    const handler = createWebhookHandlerWithHandle({
      modules: [module],
      clock,
      logger,
      onceStore: {
        consume: async () => {
          throw new StorageUnavailableError('redis:replay', { retryAfterSeconds: 4 });
        },
        release: async () => {},
      },
      signatures: { 'events/handleEvent': { scheme: 'standard-webhooks', secrets: [SIGNING_SECRET] } },
    });
    const url = `${await serve(handler)}/webhook/events/handleEvent`;
    await expectServiceUnavailable(await fetch(url, signed('{"type":"a"}', 'msg_1')));
    expect(module.calls).toHaveLength(0);
    const outages = logger.lines.filter((line) => line.fields['event'] === 'storage_unavailable');
    expect(outages.map((line) => ({ level: line.level, ...line.fields }))).toEqual([
      expect.objectContaining({
        event: 'storage_unavailable',
        component: 'redis:replay',
        endpoint: 'webhook',
      }),
    ]);
  });

  it('the method’s own store down: 503, and the delivery id is released so the retry is processed', async () => {
    const onceStore = createMemoryOnceStore();
    const module = recordingModule();
    let down = true;
    const original = (module.instance as { handleEvent: (p: Record<string, unknown>) => Promise<unknown> })
      .handleEvent;
    Object.assign(module.instance, {
      async handleEvent(params: Record<string, unknown>) {
        if (down) throw new StorageUnavailableError('postgres', { retryAfterSeconds: 4 });
        return original(params);
      },
    });
    const handler = createWebhookHandlerWithHandle({
      modules: [module],
      clock,
      onceStore,
      signatures: { 'events/handleEvent': { scheme: 'standard-webhooks', secrets: [SIGNING_SECRET] } },
    });
    const url = `${await serve(handler)}/webhook/events/handleEvent`;
    await expectServiceUnavailable(await fetch(url, signed('{"type":"b"}', 'msg_2')));
    down = false;
    const retry = await fetch(url, signed('{"type":"b"}', 'msg_2'));
    expect(await retry.json()).toEqual({ ok: true, result: { count: 1 } });
  });

  it('any other failure of the method is still the 500 it was', async () => {
    const module = recordingModule();
    module.failNext();
    const handler = createWebhookHandlerWithHandle({
      modules: [module],
      clock,
      secret: 'a-long-shared-secret-value-0123456789',
    });
    const base = await serve(handler);
    const response = await postJson(
      `${base}/webhook/events/handleEvent`,
      {},
      {
        'x-webhook-secret': 'a-long-shared-secret-value-0123456789',
      },
    );
    expect(response.status).toBe(500);
  });
});
