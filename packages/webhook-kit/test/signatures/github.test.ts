import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createWebhookHandler } from '../../src/webhook-handler.js';
import { recordingModule } from '../support/recording-module.js';
import { serve } from '../support/serve.js';

const SECRET = 'gh-webhook-secret-current';
const OLD_SECRET = 'gh-webhook-secret-previous';

/** What GitHub sends: X-Hub-Signature-256 = "sha256=" + hex HMAC-SHA256 of the raw body. */
function githubSignature(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

async function start(module = recordingModule('gh'), secret?: string): Promise<string> {
  const handler = createWebhookHandler({
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
