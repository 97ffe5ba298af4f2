import { randomBytes } from 'node:crypto';
import { createManualClock, type ManualClock } from '@keyhold/core';
import { Webhook } from 'standardwebhooks';
import { beforeEach, describe, expect, it } from 'vitest';
import type { StandardWebhooksVerification } from '../../src/signatures/types.js';
import { createWebhookHandlerWithHandle } from '../../src/webhook-handler.js';
import { recordingModule } from '../support/recording-module.js';
import { serve } from '../support/serve.js';

const newSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;
const SHARED = 'shared-secret-for-unsigned-routes';

let clock: ManualClock;
let module: ReturnType<typeof recordingModule>;
let current: string;
let previous: string;

beforeEach(() => {
  clock = createManualClock(Date.parse('2026-04-01T08:00:00Z'));
  module = recordingModule();
  current = newSecret();
  previous = newSecret();
});

async function start(config: Partial<StandardWebhooksVerification> = {}, secret?: string): Promise<string> {
  const handler = createWebhookHandlerWithHandle({
    modules: [module],
    clock,
    ...(secret !== undefined ? { secret } : {}),
    signatures: {
      'events/handleEvent': { scheme: 'standard-webhooks', secrets: [current, previous], ...config },
    },
  });
  return `${await serve(handler)}/webhook/events/handleEvent`;
}

function signed(
  secret: string,
  payload: string,
  { id = `msg_${randomBytes(8).toString('hex')}`, sentAt = new Date(clock.now()) } = {},
): RequestInit & { headers: Record<string, string> } {
  const signature = new Webhook(secret).sign(id, sentAt, payload);
  return {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
      'webhook-signature': signature,
    },
    body: payload,
  };
}

describe('Standard Webhooks: HMAC-SHA256 over id.timestamp.body', () => {
  it('accepts a delivery signed by the standardwebhooks library', async () => {
    const url = await start();
    const response = await fetch(url, signed(current, '{"type":"invoice.paid"}'));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true, result: { count: 1 } });
    expect(module.calls[0]?.['type']).toBe('invoice.paid');
  });

  it('accepts a signature made with any configured secret, for rotation', async () => {
    const url = await start();
    expect((await fetch(url, signed(previous, '{}'))).status).toBe(200);
    expect((await fetch(url, signed(newSecret(), '{}'))).status).toBe(401);
  });

  it('accepts a signature list in which one v1 entry matches', async () => {
    const url = await start();
    const init = signed(current, '{}');
    const other = new Webhook(newSecret()).sign('x', new Date(clock.now()), '{}');
    init.headers['webhook-signature'] = `v1a,AAAA ${other} ${init.headers['webhook-signature']}`;
    expect((await fetch(url, init)).status).toBe(200);
  });

  it('refuses a body changed after signing, without calling the method', async () => {
    const url = await start();
    const init = signed(current, '{"amount":10}');
    const response = await fetch(url, { ...init, body: '{"amount":1000}' });
    expect(response.status).toBe(401);
    expect((await response.json()).error).toBe('invalid_signature');
    expect(module.calls).toHaveLength(0);
  });

  it('refuses a delivery without webhook-id, webhook-timestamp or webhook-signature', async () => {
    const url = await start();
    for (const header of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) {
      const init = signed(current, '{}');
      delete init.headers[header];
      expect((await fetch(url, init)).status, header).toBe(401);
    }
  });

  it('refuses a signature whose id was swapped', async () => {
    const url = await start();
    const init = signed(current, '{}', { id: 'msg_a' });
    init.headers['webhook-id'] = 'msg_b';
    expect((await fetch(url, init)).status).toBe(401);
  });
});

describe('Standard Webhooks: 5-minute tolerance both ways', () => {
  it('accepts timestamps exactly 300 seconds old or ahead', async () => {
    const url = await start();
    expect(
      (await fetch(url, signed(current, '{}', { sentAt: new Date(clock.now() - 300_000) }))).status,
    ).toBe(200);
    expect(
      (await fetch(url, signed(current, '{}', { sentAt: new Date(clock.now() + 300_000) }))).status,
    ).toBe(200);
  });

  it('refuses a timestamp more than 300 seconds old', async () => {
    const url = await start();
    const response = await fetch(url, signed(current, '{}', { sentAt: new Date(clock.now() - 301_000) }));
    expect(response.status).toBe(401);
    expect((await response.json()).error_description).toContain('tolerance');
  });

  it('refuses a timestamp more than 300 seconds in the future', async () => {
    const url = await start();
    expect(
      (await fetch(url, signed(current, '{}', { sentAt: new Date(clock.now() + 301_000) }))).status,
    ).toBe(401);
  });

  it('honours toleranceSeconds', async () => {
    const url = await start({ toleranceSeconds: 30 });
    expect((await fetch(url, signed(current, '{}', { sentAt: new Date(clock.now() - 31_000) }))).status).toBe(
      401,
    );
  });
});

describe('Standard Webhooks: deliveries are deduplicated on webhook-id', () => {
  it('calls the method once for a replayed delivery and answers the replay as a duplicate', async () => {
    const url = await start();
    const init = signed(current, '{"n":1}', { id: 'msg_once' });
    expect(await (await fetch(url, init)).json()).toEqual({ ok: true, result: { count: 1 } });
    clock.advance(60_000);
    expect(await (await fetch(url, init)).json()).toEqual({ ok: true, duplicate: true });
    expect(module.calls).toHaveLength(1);
  });

  it('drops a retry re-signed with a new timestamp but the same id', async () => {
    const url = await start();
    await fetch(url, signed(current, '{}', { id: 'msg_retry' }));
    clock.advance(3_600_000);
    const retry = await fetch(url, signed(current, '{}', { id: 'msg_retry' }));
    expect((await retry.json()).duplicate).toBe(true);
    expect(module.calls).toHaveLength(1);
  });

  it('forgets an id after dedupeTtlSeconds', async () => {
    const url = await start({ dedupeTtlSeconds: 600 });
    await fetch(url, signed(current, '{}', { id: 'msg_ttl' }));
    clock.advance(601_000);
    expect((await (await fetch(url, signed(current, '{}', { id: 'msg_ttl' }))).json()).result).toEqual({
      count: 2,
    });
  });

  it('processes the retry of a delivery whose method failed', async () => {
    const url = await start();
    module.failNext();
    expect((await fetch(url, signed(current, '{}', { id: 'msg_fail' }))).status).toBe(500);
    clock.advance(30_000);
    const retry = await fetch(url, signed(current, '{}', { id: 'msg_fail' }));
    expect(await retry.json()).toEqual({ ok: true, result: { count: 2 } });
  });

  it('runs the method once when the same delivery arrives concurrently', async () => {
    const url = await start();
    const init = signed(current, '{}', { id: 'msg_race' });
    const responses = await Promise.all(Array.from({ length: 5 }, () => fetch(url, init)));
    expect(responses.every((response) => response.status === 200)).toBe(true);
    expect(module.calls).toHaveLength(1);
  });
});

describe('Standard Webhooks and the shared secret', () => {
  it('lets the signature alone authenticate the route when a shared secret is set', async () => {
    const url = await start({}, SHARED);
    expect((await fetch(url, signed(current, '{}'))).status).toBe(200);
  });

  it('demands both when requireSharedSecret is true', async () => {
    const url = await start({ requireSharedSecret: true }, SHARED);
    expect((await fetch(url, signed(current, '{}'))).status).toBe(401);
    const both = signed(current, '{}');
    both.headers['x-webhook-secret'] = SHARED;
    expect((await fetch(url, both)).status).toBe(200);
  });
});
