import { expectInvalidOptions } from '@keyhold/internal/testing';
import { describe, expect, it } from 'vitest';
import { WebhookError } from '../src/errors.js';
import { createGitHubVerifier } from '../src/signatures/github.js';
import { createStandardWebhooksVerifier } from '../src/signatures/standard-webhooks.js';
import { createStripeVerifier } from '../src/signatures/stripe.js';
import { createWebhookHandlerWithHandle } from '../src/webhook-handler.js';
import { githubModule } from './fixtures/modules.js';

const KEY = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;

describe('createWebhookHandler checks, at creation, what it would otherwise meet on a delivery', () => {
  it.each([
    ['an onceStore without consume', { onceStore: { release: async () => {} } }],
    ['an onceStore without release', { onceStore: { consume: async () => true } }],
    ['redactHeaders that is not an array of names', { redactHeaders: 'authorization' }],
    ['a readSource that is not a function', { readSource: '/srv/tools' }],
    ['signatures that are not an object', { signatures: [] }],
    [
      'an allowedOrigins entry that is not an origin (it would never match)',
      { allowedOrigins: ['console.example'] },
    ],
  ])('refuses %s', (_, override) => {
    expectInvalidOptions(WebhookError, () =>
      createWebhookHandlerWithHandle({ modules: [], ...override } as never),
    );
  });
});

// The verifier factories are exported on their own: each validates its settings, not only the handler.
describe('each signature verifier validates its settings at creation', () => {
  it.each([
    ['no secrets', { secrets: [] }],
    ['an empty secret', { secrets: [''] }],
  ])('createGitHubVerifier refuses %s', (_, settings) => {
    expectInvalidOptions(WebhookError, () => createGitHubVerifier({ scheme: 'github', ...settings }));
  });

  it.each([
    ['no secrets', { secrets: [] }],
    ['a negative tolerance', { secrets: ['whsec_x'], toleranceSeconds: -5 }],
    ['a fractional tolerance', { secrets: ['whsec_x'], toleranceSeconds: 0.5 }],
  ])('createStripeVerifier refuses %s', (_, settings) => {
    expectInvalidOptions(WebhookError, () => createStripeVerifier({ scheme: 'stripe', ...settings }));
  });

  it.each([
    ['no secrets', { secrets: [] }],
    ['a secret that is not a whsec_ key', { secrets: ['whsec_not-base64!'] }],
    ['a zero tolerance', { secrets: [KEY], toleranceSeconds: 0 }],
    ['a negative dedupe TTL', { secrets: [KEY], dedupeTtlSeconds: -1 }],
  ])('createStandardWebhooksVerifier refuses %s', (_, settings) => {
    expectInvalidOptions(WebhookError, () =>
      createStandardWebhooksVerifier({ scheme: 'standard-webhooks', ...settings }),
    );
  });

  it('the handler names the route whose settings are refused', () => {
    const error = expectInvalidOptions(WebhookError, () =>
      createWebhookHandlerWithHandle({
        modules: [githubModule()],
        signatures: { 'github/github/push': { scheme: 'github', secrets: [] } },
      }),
    );
    expect(error.message).toContain('signatures["github/github/push"]');
  });
});
