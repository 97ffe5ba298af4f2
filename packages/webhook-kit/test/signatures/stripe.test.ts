import { createHmac } from 'node:crypto';
import { createManualClock } from '@keyhold/core';
import { describe, expect, it } from 'vitest';
import { createWebhookHandlerWithHandle } from '../../src/webhook-handler.js';
import { recordingModule } from '../support/recording-module.js';
import { serve } from '../support/serve.js';

const ENDPOINT_SECRET = 'whsec_test_5WbX5kEWLlfzsGNjH64I8lOOqUB6e8FH';
const NOW = Date.parse('2026-05-01T10:00:00Z');

/** What Stripe sends: t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body" keyed with the endpoint secret>. */
function stripeSignature(secret: string, body: string, t = Math.floor(NOW / 1000)): string {
  return `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}`;
}

async function start(module = recordingModule('billing'), toleranceSeconds?: number): Promise<string> {
  const handler = createWebhookHandlerWithHandle({
    modules: [module],
    clock: createManualClock(NOW),
    signatures: {
      'billing/handleEvent': {
        scheme: 'stripe',
        secrets: [ENDPOINT_SECRET],
        ...(toleranceSeconds !== undefined ? { toleranceSeconds } : {}),
      },
    },
  });
  return `${await serve(handler)}/webhook/billing/handleEvent`;
}

function delivery(body: string, signature: string): RequestInit {
  return {
    method: 'POST',
    headers: { 'content-type': 'application/json; charset=utf-8', 'stripe-signature': signature },
    body,
  };
}

describe('Stripe: Stripe-Signature over t.body', () => {
  it('accepts an event signed as Stripe signs it', async () => {
    const module = recordingModule('billing');
    const url = await start(module);
    const body = JSON.stringify({ id: 'evt_1', type: 'checkout.session.completed' });
    const response = await fetch(url, delivery(body, stripeSignature(ENDPOINT_SECRET, body)));
    expect(response.status).toBe(200);
    expect(module.calls[0]?.['type']).toBe('checkout.session.completed');
  });

  it('accepts a header with several v1 entries and a v0 entry when one v1 matches', async () => {
    const url = await start();
    const t = Math.floor(NOW / 1000);
    const good = stripeSignature(ENDPOINT_SECRET, '{}', t).split(',v1=')[1];
    const header = `t=${t},v0=deadbeef,v1=${'0'.repeat(64)},v1=${good}`;
    expect((await fetch(url, delivery('{}', header))).status).toBe(200);
  });

  it('refuses a changed body, a wrong secret and a header without t or v1', async () => {
    const module = recordingModule('billing');
    const url = await start(module);
    expect(
      (await fetch(url, delivery('{"amount":1}', stripeSignature(ENDPOINT_SECRET, '{"amount":9}')))).status,
    ).toBe(401);
    expect((await fetch(url, delivery('{}', stripeSignature('whsec_other', '{}')))).status).toBe(401);
    const vOnly = stripeSignature(ENDPOINT_SECRET, '{}').replace(/^t=\d+,/, '');
    expect((await fetch(url, delivery('{}', vOnly))).status).toBe(401);
    expect(module.calls).toHaveLength(0);
  });

  it('refuses a signature older or newer than the 300-second tolerance', async () => {
    const url = await start();
    const t = Math.floor(NOW / 1000);
    expect((await fetch(url, delivery('{}', stripeSignature(ENDPOINT_SECRET, '{}', t - 300)))).status).toBe(
      200,
    );
    expect((await fetch(url, delivery('{}', stripeSignature(ENDPOINT_SECRET, '{}', t - 301)))).status).toBe(
      401,
    );
    expect((await fetch(url, delivery('{}', stripeSignature(ENDPOINT_SECRET, '{}', t + 301)))).status).toBe(
      401,
    );
  });

  it('honours toleranceSeconds', async () => {
    const url = await start(undefined, 10);
    const t = Math.floor(NOW / 1000);
    expect((await fetch(url, delivery('{}', stripeSignature(ENDPOINT_SECRET, '{}', t - 11)))).status).toBe(
      401,
    );
  });
});

describe('Stripe: a signed delivery is accepted once within its tolerance; a replay is dropped as a duplicate', () => {
  it('calls the method once for the same t and signature, however the header is rearranged', async () => {
    const module = recordingModule('billing');
    const url = await start(module);
    const signature = stripeSignature(ENDPOINT_SECRET, '{"id":"evt_1"}');
    expect((await fetch(url, delivery('{"id":"evt_1"}', signature))).status).toBe(200);
    const replay = await fetch(url, delivery('{"id":"evt_1"}', signature));
    expect(replay.status).toBe(200);
    expect(await replay.json()).toEqual({ ok: true, duplicate: true });
    const [t, v1] = signature.split(',');
    const rearranged = `v0=abc,${v1},${t},v1=${'0'.repeat(64)}`;
    expect(await (await fetch(url, delivery('{"id":"evt_1"}', rearranged))).json()).toEqual({
      ok: true,
      duplicate: true,
    });
    expect(module.calls).toHaveLength(1);
  });

  it("treats Stripe's retry (a new t) as a new delivery", async () => {
    const module = recordingModule('billing');
    const url = await start(module);
    const t = Math.floor(NOW / 1000);
    await fetch(url, delivery('{"id":"evt_2"}', stripeSignature(ENDPOINT_SECRET, '{"id":"evt_2"}', t - 60)));
    await fetch(url, delivery('{"id":"evt_2"}', stripeSignature(ENDPOINT_SECRET, '{"id":"evt_2"}', t)));
    expect(module.calls).toHaveLength(2);
  });
});
