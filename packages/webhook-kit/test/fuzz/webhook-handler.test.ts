import { createManualClock } from '@keyhold/core';
import * as fc from 'fast-check';
import { describe, it } from 'vitest';
import {
  assertSafeResult,
  fuzzOptions,
  fuzzTimeoutMs,
  hostileForm,
  hostileString,
  payload,
  percentEncode,
} from '../../../../test-support/fuzz.js';
import { createWebhookHandlerWithHandle } from '../../src/webhook-handler.js';
import { billingModule, githubModule } from '../fixtures/modules.js';
import { recordingModule } from '../support/recording-module.js';

const SECRET = 'a-long-shared-secret-value-0123456789';
const STRIPE_SECRET = 'whsec_fuzz_secret_value';
const clock = createManualClock(Date.parse('2026-03-01T12:00:00Z'));

const handler = createWebhookHandlerWithHandle({
  modules: [githubModule(), billingModule(), recordingModule()],
  secret: SECRET,
  clock,
  bodyLimitBytes: 64 * 1024,
  signatures: { 'billing/stripe/events': { scheme: 'stripe', secrets: [STRIPE_SECRET] } },
});
const routePaths = handler.routes.map((route) => `/webhook/${route.key}`);
// handleFailure throws on purpose: its 500 is the documented answer for a method that failed.
const FAILING = '/webhook/github/handleFailure';

describe('fuzz: POST /webhook/<module>/<method> answers every request with JSON, never a crash', () => {
  it(
    'any path, method, headers, content type and body: no 5xx (but a failing method), no split header',
    async () => {
      const path = fc.oneof(
        fc.constantFrom(
          ...routePaths,
          '/webhook/',
          '/webhook/github/%2Fx',
          '/webhook/github/%zz',
          '/webhook/__proto__/constructor',
        ),
        fc.tuple(fc.constantFrom(...routePaths), payload()).map(([p, x]) => p + percentEncode(x)),
        hostileString().map((value) => `/webhook/${value}`),
      );
      const contentType = fc.oneof(
        fc.constantFrom(
          'application/json',
          'application/x-www-form-urlencoded',
          'application/json; charset=utf-8',
          'text/plain',
        ),
        hostileString(),
      );
      const body = fc.oneof(
        fc.jsonValue().map((value) => JSON.stringify(value)),
        fc.constantFrom(
          '{"__proto__":{"polluted":1}}',
          '{"constructor":{"prototype":{"x":1}}}',
          '[]',
          'null',
          '1e999',
          '{"a":',
        ),
        hostileForm(['text', '__proto__', '_webhook', 'a[b]']),
        hostileString(),
      );
      const headers = fc.record(
        {
          'x-webhook-secret': fc.oneof(fc.constant(SECRET), hostileString([SECRET])),
          'content-type': contentType,
          'stripe-signature': hostileString(['t=1,v1=abc']),
          'webhook-id': hostileString(),
          'x-hub-signature-256': hostileString(),
        },
        { requiredKeys: [] },
      );
      await fc.assert(
        fc.asyncProperty(
          path,
          fc.oneof(
            { weight: 6, arbitrary: fc.constant('POST') },
            { weight: 1, arbitrary: fc.constantFrom('GET', 'PUT', 'OPTIONS') },
          ),
          headers,
          body,
          hostileForm(['a', 'b']),
          async (p, method, hdrs, raw, query) => {
            const result = await handler({ method, path: p, query, headers: hdrs, body: raw });
            assertSafeResult(result, { allowedServerErrors: p === FAILING ? [500] : [] });
            const parsed = JSON.parse(result.body ?? 'null') as { ok?: boolean } | null;
            if (parsed === null || typeof parsed.ok !== 'boolean')
              throw new Error(`not a webhook body: ${result.body}`);
          },
        ),
        fuzzOptions(),
      );
      if (({} as Record<string, unknown>).polluted !== undefined)
        throw new Error('Object.prototype was polluted');
    },
    fuzzTimeoutMs(),
  );
});
