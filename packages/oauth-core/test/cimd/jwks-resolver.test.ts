import { createManualClock, createMemoryRateLimiter } from '@keyhold/core';
import { HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { CimdFetchRateLimit } from '../../src/cimd/fetch-budget.js';
import type { JwksResolverOptions } from '../../src/cimd/jwks-resolver.js';
import { createJwksResolver } from '../../src/cimd/jwks-resolver.js';

const URI = 'https://app.example/.well-known/jwks.json';
const KEY = { kty: 'OKP', crv: 'Ed25519', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo', kid: 'k1' };

const network = setupServer();
const unhandled: string[] = [];
network.events.on('request:unhandled', ({ request }) => {
  unhandled.push(`${request.method} ${request.url}`);
});
beforeAll(() => network.listen({ onUnhandledRequest: 'error' }));
afterEach(() => {
  network.resetHandlers();
  expect(unhandled.splice(0)).toEqual([]);
});
afterAll(() => network.close());

function setup(options: JwksResolverOptions = {}) {
  const clock = createManualClock(Date.parse('2026-01-01T00:00:00Z'));
  let fetches = 0;
  const resolver = createJwksResolver({
    // msw patches the global fetch in beforeAll, so it is looked up per call.
    fetch: (url, init) => {
      fetches += 1;
      return fetch(url, init);
    },
    clock,
    ...options,
  });
  return { resolver, clock, fetches: () => fetches };
}

function serve(body: unknown, init: ResponseInit = {}): void {
  network.use(http.get(URI, () => HttpResponse.json(body as never, init)));
}

describe('createJwksResolver: https only, bounded, validated (RFC 7517 §5)', () => {
  it('refuses a non-https jwks_uri without any request', async () => {
    const { resolver, fetches } = setup();
    for (const uri of ['http://app.example/jwks.json', 'https://u:p@app.example/jwks.json', 'not a url']) {
      expect(await resolver.resolve(uri)).toMatchObject({
        ok: false,
        description: expect.stringMatching(/https/),
      });
    }
    expect(fetches()).toBe(0);
  });

  it('answers the public keys of a valid set', async () => {
    serve({ keys: [KEY] });
    const { resolver } = setup();
    expect(await resolver.resolve(URI)).toEqual({ ok: true, keys: [KEY], cached: false });
  });

  it.each([
    ['a set with a private key', { keys: [{ ...KEY, d: 'private' }] }, /private key material/],
    ['a symmetric key', { keys: [{ kty: 'oct', k: 'c2VjcmV0' }] }, /kty must be RSA, EC or OKP/],
    ['an empty set', { keys: [] }, /at least one key/],
    ['a document that is no set', { hello: 'world' }, /keys/],
  ])('refuses %s', async (_name, body, message) => {
    serve(body);
    const { resolver } = setup();
    const resolution = await resolver.resolve(URI);
    expect(resolution.ok).toBe(false);
    if (!resolution.ok) expect(resolution.description).toMatch(message);
  });

  it('refuses an HTTP error, a redirect (never followed) and a body over the size limit', async () => {
    network.use(
      http.get(URI, () => new HttpResponse(null, { status: 302, headers: { location: '/elsewhere' } })),
    );
    expect(await setup().resolver.resolve(URI)).toMatchObject({
      ok: false,
      description: expect.stringMatching(/302/),
    });
    network.use(http.get(URI, () => new HttpResponse('x'.repeat(2000), { status: 200 })));
    expect(await setup({ maxBodyBytes: 1000 }).resolver.resolve(URI)).toMatchObject({
      ok: false,
      description: expect.stringMatching(/larger than 1000 bytes/),
    });
    network.use(http.get(URI, () => new HttpResponse('{not json', { status: 200 })));
    expect(await setup().resolver.resolve(URI)).toMatchObject({
      ok: false,
      description: expect.stringMatching(/not valid UTF-8 JSON/),
    });
  });

  it('refuses bad options at creation', () => {
    expect(() => createJwksResolver({ refetchThrottleSeconds: 0 })).toThrow(
      expect.objectContaining({ name: 'OAuthCoreError', code: 'ERR_INVALID_OPTIONS' }),
    );
    expect(() => createJwksResolver({ minMaxAgeSeconds: 100, maxMaxAgeSeconds: 10 })).toThrow(
      expect.objectContaining({ name: 'OAuthCoreError', code: 'ERR_INVALID_OPTIONS' }),
    );
  });
});

describe('createJwksResolver: caching and the refetch throttle', () => {
  it('caches for the Cache-Control lifetime (clamped), then fetches again', async () => {
    serve({ keys: [KEY] }, { headers: { 'cache-control': 'max-age=120' } });
    const { resolver, clock, fetches } = setup();
    await resolver.resolve(URI);
    clock.advance(119_000);
    expect(await resolver.resolve(URI)).toMatchObject({ ok: true, cached: true });
    expect(fetches()).toBe(1);
    clock.advance(2000);
    expect(await resolver.resolve(URI)).toMatchObject({ ok: true, cached: false });
    expect(fetches()).toBe(2);
  });

  it('a refresh refetches a cached set at most once per refetchThrottleSeconds', async () => {
    serve({ keys: [KEY] }, { headers: { 'cache-control': 'max-age=3600' } });
    const { resolver, clock, fetches } = setup({ refetchThrottleSeconds: 30 });
    await resolver.resolve(URI);
    expect(await resolver.resolve(URI, { refresh: true })).toMatchObject({ cached: true });
    clock.advance(29_000);
    expect(await resolver.resolve(URI, { refresh: true })).toMatchObject({ cached: true });
    expect(fetches()).toBe(1);
    clock.advance(1000);
    expect(await resolver.resolve(URI, { refresh: true })).toMatchObject({ cached: false });
    expect(await resolver.resolve(URI, { refresh: true })).toMatchObject({ cached: true });
    expect(fetches()).toBe(2);
  });

  it('a failed refresh keeps the fresh set it would have replaced', async () => {
    serve({ keys: [KEY] }, { headers: { 'cache-control': 'max-age=3600' } });
    const { resolver, clock, fetches } = setup({ refetchThrottleSeconds: 30 });
    await resolver.resolve(URI);
    network.use(http.get(URI, () => new HttpResponse(null, { status: 503 })));
    clock.advance(30_000);
    expect(await resolver.resolve(URI, { refresh: true })).toEqual({ ok: true, keys: [KEY], cached: true });
    expect(await resolver.resolve(URI, { refresh: true })).toMatchObject({ ok: true, cached: true });
    expect(fetches()).toBe(2);
  });

  it('remembers a failure for failureTtlSeconds, even against refresh', async () => {
    network.use(http.get(URI, () => new HttpResponse(null, { status: 500 })));
    const { resolver, clock, fetches } = setup({ failureTtlSeconds: 10 });
    await resolver.resolve(URI);
    await resolver.resolve(URI, { refresh: true });
    expect(fetches()).toBe(1);
    clock.advance(10_000);
    await resolver.resolve(URI);
    expect(fetches()).toBe(2);
  });

  it('joins concurrent resolutions of one set into one request', async () => {
    serve({ keys: [KEY] });
    const { resolver, fetches } = setup();
    const all = await Promise.all(Array.from({ length: 5 }, () => resolver.resolve(URI)));
    expect(all.every((resolution) => resolution.ok)).toBe(true);
    expect(fetches()).toBe(1);
  });
});

describe('createJwksResolver fetchRateLimit: a per-host budget of key-set fetches', () => {
  it('refuses a fetch over the budget without a request; cache hits do not count', async () => {
    serve({ keys: [KEY] }, { headers: { 'cache-control': 'max-age=60' } });
    const other = 'https://app.example/other/jwks.json';
    network.use(http.get(other, () => HttpResponse.json({ keys: [KEY] })));
    const { resolver, fetches } = setup({
      fetchRateLimit: { limiter: createMemoryRateLimiter(), limit: 1, windowSeconds: 60 },
    });
    expect(await resolver.resolve(URI)).toMatchObject({ ok: true, cached: false });
    expect(await resolver.resolve(URI)).toMatchObject({ ok: true, cached: true });
    expect(await resolver.resolve(other)).toMatchObject({
      ok: false,
      description: expect.stringMatching(/too many fetches from app\.example/),
      detail: 'fetch_rate_limited',
    });
    expect(fetches()).toBe(1);
  });

  it.each([[{ limit: 0 }], [{ windowSeconds: 0.5 }], [{ limiter: {} }]])(
    'rejects a bad rule %o at creation',
    (rule) => {
      expect(() =>
        createJwksResolver({
          fetchRateLimit: {
            limiter: createMemoryRateLimiter(),
            ...rule,
          } as CimdFetchRateLimit,
        }),
      ).toThrow(expect.objectContaining({ name: 'OAuthCoreError', code: 'ERR_INVALID_OPTIONS' }));
    },
  );
});
