import { createManualClock } from '@keyhold/core';
import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  assertSafeResult,
  fuzzOptions,
  fuzzTimeoutMs,
  hostileForm,
  hostileString,
  payload,
  percentEncode,
} from '../../../../test-support/fuzz.js';
import { createRegistryApiWithHandle } from '../../src/server/registry-api.js';
import { httpProvider, stdioProvider } from '../helpers/providers.js';

const providers = {
  github: httpProvider('github', { name: 'GitHub' }),
  git: stdioProvider('git', { name: 'Git', description: '<script>alert(1)</script> repositories.' }),
};

describe('fuzz: the registry API answers every request with JSON or an empty 204/304, never a 5xx', () => {
  it(
    'any path, method, query, If-None-Match and client IP',
    async () => {
      const api = createRegistryApiWithHandle({
        providers,
        clock: createManualClock(0),
        rateLimitPerWindow: 1_000_000,
      });
      const path = fc.oneof(
        fc.constantFrom(
          '/health',
          '/api/providers',
          '/api/providers/',
          '/api/providers/search',
          '/api/providers/github',
          '/api/providers/GIT/',
        ),
        hostileString().map((value) => `/api/providers/${value}`),
        payload().map((value) => `/api/providers/${percentEncode(value)}`),
        hostileString().map((value) => `/${value}`),
      );
      await fc.assert(
        fc.asyncProperty(
          path,
          fc.constantFrom('GET', 'GET', 'GET', 'HEAD', 'OPTIONS', 'POST', 'DELETE'),
          hostileForm(['q', 'limit']),
          fc.option(hostileString(['"abc"', '*', 'W/"x"']), { nil: undefined }),
          fc.option(hostileString(['127.0.0.1']), { nil: undefined }),
          async (p, method, query, ifNoneMatch, ip) => {
            const result = await api({
              method,
              path: p,
              query,
              headers: ifNoneMatch === undefined ? {} : { 'if-none-match': ifNoneMatch },
              body: '',
              ...(ip === undefined ? {} : { ip }),
            });
            assertSafeResult(result);
            if (result.body !== undefined && result.body !== '') JSON.parse(result.body);
          },
        ),
        fuzzOptions(),
      );
    },
    fuzzTimeoutMs(),
  );

  it(
    'limits by IP whatever the IP string is: past the limit, 429 with Retry-After',
    async () => {
      await fc.assert(
        fc.asyncProperty(hostileString(['127.0.0.1']), async (ip) => {
          const api = createRegistryApiWithHandle({
            providers,
            clock: createManualClock(0),
            rateLimitPerWindow: 2,
          });
          const request = { method: 'GET', path: '/api/providers', query: '', headers: {}, body: '', ip };
          await api(request);
          await api(request);
          const third = await api(request);
          assertSafeResult(third);
          expect(third.status).toBe(429);
          expect(Number(third.headers['retry-after'])).toBeGreaterThan(0);
        }),
        fuzzOptions(Math.max(20, Math.floor(fuzzOptions().numRuns! / 4))),
      );
    },
    fuzzTimeoutMs(),
  );
});
