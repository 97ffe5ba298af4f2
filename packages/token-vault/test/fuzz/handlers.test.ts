import * as fc from 'fast-check';
import { HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  assertSafeResult,
  fuzzOptions,
  fuzzTimeoutMs,
  hostileForm,
  hostileString,
  percentEncode,
  SCRIPT_PAYLOADS,
} from '../../../../test-support/fuzz.js';
import {
  ACME_AUTHORIZE,
  ACME_TOKEN,
  ACME_ASK as ask,
  authorizeInBrowser,
  elicitationOf,
  getRequest,
  makeHarness,
} from '../fixtures.js';

/** The provider answers at random: tokens, an OAuth error, a 500, garbage, or an empty body. */
const providerAnswers = [
  () => HttpResponse.json({ access_token: 'fuzz-access', token_type: 'bearer', expires_in: 60 }),
  () => HttpResponse.json({ error: '<script>alert(1)</script>' }, { status: 400 }),
  () => new HttpResponse('upstream exploded', { status: 500 }),
  () => new HttpResponse('<html>not json', { status: 200, headers: { 'content-type': 'application/json' } }),
  () => HttpResponse.json({ access_token: 42, expires_in: 'soon' }),
  () => new HttpResponse(null, { status: 204 }),
];
let answer = 0;
const server = setupServer(
  http.post(ACME_TOKEN, () => providerAnswers[answer++ % providerAnswers.length]!()),
);
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterAll(() => server.close());

const harness = makeHarness();
let elicitationUrl = '';
let elicitationId = '';
let liveState = '';

beforeAll(async () => {
  const error = await elicitationOf(harness.broker.requestToken(ask, harness.context));
  elicitationUrl = error.elicitationUrl;
  elicitationId = new URL(elicitationUrl).searchParams.get('elicitation_id') ?? '';
  const { authorizationUrl } = await authorizeInBrowser(harness.broker, elicitationUrl);
  liveState = authorizationUrl.searchParams.get('state') ?? '';
});

const redirectAllowed = (target: URL): boolean => `${target.origin}${target.pathname}` === ACME_AUTHORIZE;
const user = () =>
  fc.option(fc.oneof(fc.constant('user-1'), fc.constant('user-2'), hostileString()), { nil: undefined });
const method = () =>
  fc.oneof(
    { weight: 6, arbitrary: fc.constant('GET') },
    { weight: 1, arbitrary: fc.constantFrom('HEAD', 'POST', 'PUT') },
  );

describe('fuzz: the connect step (elicitation link) answers every request with a safe page or the provider redirect', () => {
  it(
    'never errors, splits a header, redirects anywhere but the provider, or reflects script',
    async () => {
      const id = fc.oneof(fc.constant(elicitationId), hostileString([elicitationId]));
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(
            id.map((value) => `elicitation_id=${percentEncode(value)}`),
            hostileForm(['elicitation_id'], () => id),
          ),
          user(),
          method(),
          async (query, userId, verb) => {
            const result = await harness.broker.connect({
              ...getRequest(`https://host.example/auth/oauth/connect?${query}`, userId),
              query,
              method: verb,
            });
            assertSafeResult(result, { redirectAllowed });
          },
        ),
        fuzzOptions(),
      );
    },
    fuzzTimeoutMs(),
  );
});

describe('fuzz: the callback answers every provider redirect with a safe page and stores nothing it should not', () => {
  it(
    'never errors (502 only when the provider failed), never splits a header, escapes the provider error',
    async () => {
      // Well-formed opaque states that no pending authorization was stored under.
      const forgedState = fc
        .uint8Array({ minLength: 32, maxLength: 32 })
        .map((bytes) => Buffer.from(bytes).toString('base64url'));
      const values = (name: string) =>
        name === 'state'
          ? fc.oneof(fc.constant(liveState), forgedState, hostileString([liveState]))
          : name === 'error'
            ? fc.oneof(fc.constantFrom(...SCRIPT_PAYLOADS), hostileString())
            : hostileString(['code-1']);
      await fc.assert(
        fc.asyncProperty(
          hostileForm(['state', 'code', 'error', 'error_description', 'iss'], values),
          user(),
          method(),
          async (query, userId, verb) => {
            const result = await harness.broker.callback({
              ...getRequest('https://host.example/auth/oauth/callback', userId),
              query,
              method: verb,
            });
            assertSafeResult(result, { allowedServerErrors: [502] });
          },
        ),
        fuzzOptions(),
      );
      // Whatever was stored came from a well-formed provider answer to a genuine, single-use state.
      const grants = await harness.storage.grants.list({ tenantId: 'tenant-a' });
      expect(grants.length).toBeLessThanOrEqual(1);
    },
    fuzzTimeoutMs(10),
  );
});
