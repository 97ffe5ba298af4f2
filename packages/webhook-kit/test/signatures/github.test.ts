import { createHmac, randomUUID } from 'node:crypto';
import { createManualClock } from '@keyhold/core';
import { describe, expect, it } from 'vitest';
import { createWebhookHandlerWithHandle } from '../../src/webhook-handler.js';
import { recordingModule } from '../support/recording-module.js';
import { serve } from '../support/serve.js';

const SECRET = 'gh-webhook-secret-current';
const OLD_SECRET = 'gh-webhook-secret-previous';

/** What GitHub sends: X-Hub-Signature-256 = "sha256=" + hex HMAC-SHA256 of the raw body. */
function githubSignature(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

async function start(module = recordingModule('gh'), secret?: string): Promise<string> {
  const handler = createWebhookHandlerWithHandle({
    modules: [module],
    ...(secret !== undefined ? { secret } : {}),
    signatures: { 'gh/handleEvent': { scheme: 'github', secrets: [SECRET, OLD_SECRET] } },
  });
  return `${await serve(handler)}/webhook/gh/handleEvent`;
}

function delivery(body: string, signature: string, contentType = 'application/json'): RequestInit {
  return {
    method: 'POST',
    headers: { 'content-type': contentType, 'x-github-event': 'push', 'x-hub-signature-256': signature },
    body,
  };
}

describe('GitHub: X-Hub-Signature-256 over the raw body', () => {
  it('accepts a JSON delivery signed as GitHub signs it', async () => {
    const module = recordingModule('gh');
    const url = await start(module);
    const body = '{"ref":"refs/heads/main","commits":[{"message":"ünïcödé ✓"}]}';
    const response = await fetch(url, delivery(body, githubSignature(SECRET, body)));
    expect(response.status).toBe(200);
    expect(module.calls[0]?.['ref']).toBe('refs/heads/main');
  });

  it('accepts a form delivery (payload=…) signed over the form body', async () => {
    const module = recordingModule('gh');
    const url = await start(module);
    const body = `payload=${encodeURIComponent('{"zen":"Keep it logically awesome."}')}`;
    const response = await fetch(
      url,
      delivery(body, githubSignature(SECRET, body), 'application/x-www-form-urlencoded'),
    );
    expect(response.status).toBe(200);
    expect(JSON.parse(String(module.calls[0]?.['payload']))).toEqual({ zen: 'Keep it logically awesome.' });
  });

  it('accepts a signature made with the previous secret during rotation', async () => {
    const url = await start();
    expect((await fetch(url, delivery('{}', githubSignature(OLD_SECRET, '{}')))).status).toBe(200);
  });

  it('refuses a wrong secret, a changed body, a missing header and the sha1 header alone', async () => {
    const module = recordingModule('gh');
    const url = await start(module);
    expect((await fetch(url, delivery('{}', githubSignature('guess', '{}')))).status).toBe(401);
    expect((await fetch(url, delivery('{"a":2}', githubSignature(SECRET, '{"a":1}')))).status).toBe(401);
    const sha1 = createHmac('sha1', SECRET).update('{}').digest('hex');
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-hub-signature': `sha1=${sha1}` },
      body: '{}',
    });
    expect(response.status).toBe(401);
    expect((await response.json()).error).toBe('invalid_signature');
    expect(module.calls).toHaveLength(0);
  });

  it('needs no X-Webhook-Secret on a signed route, while unsigned routes still do', async () => {
    const module = recordingModule('gh');
    Object.assign(module.instance, { handleOther: async () => 'other' });
    const url = await start(module, 'shared-secret');
    expect((await fetch(url, delivery('{}', githubSignature(SECRET, '{}')))).status).toBe(200);
    const unsigned = url.replace('handleEvent', 'handleOther');
    expect((await fetch(unsigned, { method: 'POST' })).status).toBe(401);
  });
});

describe('GitHub: a signed delivery is accepted once; a replay is dropped as a duplicate', () => {
  async function startWithClock(dedupeTtlSeconds?: number) {
    const module = recordingModule('gh');
    const clock = createManualClock(Date.parse('2026-05-01T10:00:00Z'));
    const handler = createWebhookHandlerWithHandle({
      modules: [module],
      clock,
      signatures: {
        'gh/handleEvent': {
          scheme: 'github',
          secrets: [SECRET],
          ...(dedupeTtlSeconds === undefined ? {} : { dedupeTtlSeconds }),
        },
      },
    });
    return { module, clock, url: `${await serve(handler)}/webhook/gh/handleEvent` };
  }
  const withDelivery = (init: RequestInit, id: string): RequestInit => ({
    ...init,
    headers: { ...(init.headers as Record<string, string>), 'x-github-delivery': id },
  });

  it('calls the method once for the same signed body, whatever X-GitHub-Delivery says (it is not signed)', async () => {
    const { module, url } = await startWithClock();
    const body = '{"ref":"refs/heads/main","after":"abc"}';
    const init = delivery(body, githubSignature(SECRET, body));
    expect((await fetch(url, withDelivery(init, randomUUID()))).status).toBe(200);
    const again = await fetch(url, withDelivery(init, randomUUID()));
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual({ ok: true, duplicate: true });
    // The signature compares case-insensitively, so an upper-cased copy is the same delivery.
    const upper = delivery(body, githubSignature(SECRET, body).toUpperCase().replace('SHA256=', 'sha256='));
    expect(await (await fetch(url, upper)).json()).toEqual({ ok: true, duplicate: true });
    expect(module.calls).toHaveLength(1);
    // Another body is another delivery.
    const other = '{"ref":"refs/heads/main","after":"def"}';
    expect((await fetch(url, delivery(other, githubSignature(SECRET, other)))).status).toBe(200);
    expect(module.calls).toHaveLength(2);
  });

  it('remembers a delivery for dedupeTtlSeconds (default a day), then forgets it', async () => {
    const { module, clock, url } = await startWithClock(3600);
    const init = delivery('{"n":1}', githubSignature(SECRET, '{"n":1}'));
    await fetch(url, init);
    clock.advance(3_599_000);
    expect(await (await fetch(url, init)).json()).toEqual({ ok: true, duplicate: true });
    clock.advance(2_000);
    expect((await (await fetch(url, init)).json()).duplicate).toBeUndefined();
    expect(module.calls).toHaveLength(2);
  });

  it('processes a retry again when the method failed the first time', async () => {
    const { module, url } = await startWithClock();
    module.failNext();
    const init = delivery('{"n":2}', githubSignature(SECRET, '{"n":2}'));
    expect((await fetch(url, init)).status).toBe(500);
    expect((await fetch(url, init)).status).toBe(200);
    expect(module.calls).toHaveLength(2);
  });

  it('refuses a dedupeTtlSeconds that is not a whole number of seconds', () => {
    expect(() =>
      createWebhookHandlerWithHandle({
        modules: [recordingModule('gh')],
        signatures: { 'gh/handleEvent': { scheme: 'github', secrets: [SECRET], dedupeTtlSeconds: 0 } },
      }),
    ).toThrow(expect.objectContaining({ code: 'ERR_INVALID_OPTIONS' }));
  });
});
