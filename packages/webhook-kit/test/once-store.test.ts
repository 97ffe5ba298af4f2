import { randomBytes } from 'node:crypto';
import { createManualClock, createMemoryOnceStore, type OnceStore } from '@keyhold/core';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { createWebhookHandlerWithHandle } from '../src/webhook-handler.js';
import { recordingModule } from './support/recording-module.js';
import { serve } from './support/serve.js';

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

async function instance(onceStore: OnceStore): Promise<{ url: string; calls: readonly unknown[] }> {
  const module = recordingModule();
  const handler = createWebhookHandlerWithHandle({
    modules: [module],
    clock,
    onceStore,
    signatures: { 'events/handleEvent': { scheme: 'standard-webhooks', secrets: [SIGNING_SECRET] } },
  });
  return { url: `${await serve(handler)}/webhook/events/handleEvent`, calls: module.calls };
}

describe('deliveries are spent in the shared once store, under webhook:<route, percent-encoded>:<id>', () => {
  it('a delivery processed by one instance is a duplicate on another sharing the store', async () => {
    const spent: string[] = [];
    const memory = createMemoryOnceStore();
    const shared: OnceStore = {
      consume: (key, expiresAt, now) => {
        spent.push(key);
        return memory.consume(key, expiresAt, now);
      },
      release: (key) => memory.release(key),
    };
    const first = await instance(shared);
    const second = await instance(shared);
    expect((await fetch(first.url, signed('{"type":"a"}', 'msg_shared'))).status).toBe(200);
    const again = await fetch(second.url, signed('{"type":"a"}', 'msg_shared'));
    expect(await again.json()).toEqual({ ok: true, duplicate: true });
    expect(first.calls).toHaveLength(1);
    expect(second.calls).toHaveLength(0);
    expect(spent).toEqual([
      'webhook:events%2FhandleEvent:msg_shared',
      'webhook:events%2FhandleEvent:msg_shared',
    ]);
  });
});
