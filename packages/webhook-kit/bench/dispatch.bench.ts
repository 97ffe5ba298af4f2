import { createHmac } from 'node:crypto';
import type { HandlerRequest } from '@keyhold/core';
import { bench, describe } from 'vitest';
import { createWebhookHandlerWithHandle } from '../src/webhook-handler.js';
import { githubModule } from '../test/fixtures/modules.js';

// Dispatch overhead of the webhook layer (route, secret, body parse, metadata, call, response), measured
// by calling the handler directly: no sockets, no adapter. The fixture methods do next to nothing.
const SECRET = 'bench-shared-secret-0123456789abcdef';
const GITHUB_SECRET = 'bench-github-secret';

const handler = createWebhookHandlerWithHandle({
  modules: [githubModule()],
  secret: SECRET,
  signatures: { 'github/github/push': { scheme: 'github', secrets: [GITHUB_SECRET] } },
});

const headers = {
  host: 'hooks.example.com',
  'user-agent': 'GitHub-Hookshot/abc123',
  accept: '*/*',
  'content-type': 'application/json',
  'x-github-event': 'push',
  'x-github-delivery': '72d3162e-cc78-11e3-81ab-4c9367dc0958',
  'x-webhook-secret': SECRET,
};
const jsonBody = JSON.stringify({
  ref: 'refs/heads/main',
  before: '0000000000000000000000000000000000000000',
  after: '6113728f27ae82c7b1a177c8d03f9e96e0adf246',
  repository: { id: 1296269, full_name: 'octocat/Hello-World', private: false },
  pusher: { name: 'octocat', email: 'octocat@example.com' },
});

const json: HandlerRequest = {
  method: 'POST',
  path: '/webhook/github/handleNothing',
  query: '',
  headers,
  body: jsonBody,
};
const withQuery: HandlerRequest = { ...json, query: 'delivery=42&source=ci' };
const form: HandlerRequest = {
  ...json,
  headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
  body: `payload=${encodeURIComponent(jsonBody)}`,
};
const signed: HandlerRequest = {
  ...json,
  path: '/webhook/github/github/push',
  headers: {
    ...headers,
    'x-hub-signature-256': `sha256=${createHmac('sha256', GITHUB_SECRET).update(jsonBody).digest('hex')}`,
  },
};
const notFound: HandlerRequest = { ...json, path: '/webhook/github/handleMissing' };

async function expectStatus(request: HandlerRequest, status: number): Promise<void> {
  const result = await handler(request);
  if (result.status !== status) throw new Error(`expected ${status}, got ${result.status}: ${result.body}`);
}

describe('webhook dispatch overhead (in-process, per request)', () => {
  bench('JSON body, shared secret, handle* route', () => expectStatus(json, 200));
  bench('JSON body and query parameters', () => expectStatus(withQuery, 200));
  bench('form body (GitHub payload=…)', () => expectStatus(form, 200));
  bench('GitHub X-Hub-Signature-256, multi-segment tag route', () => expectStatus(signed, 200));
  bench('unknown method (404)', () => expectStatus(notFound, 404));
});
