import { createManualClock, createMemoryRateLimiter } from '@keyhold/core';
import { HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { CimdFetchRateLimit } from '../../src/cimd/fetch-budget.js';
import type { JwksResolverOptions } from '../../src/cimd/jwks-resolver.js';
import { createJwksResolver } from '../../src/cimd/jwks-resolver.js';

const URI = 'https://app.example/.well-known/jwks.json';
const UNUSABLE = "the client's jwks_uri did not provide a usable JWK Set";
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
    expect(resolution).toMatchObject({ ok: false, description: UNUSABLE });
    if (!resolution.ok) expect(resolution.detail).toMatch(message);
  });

  it('refuses an HTTP error, a redirect (never followed) and a body over the size limit', async () => {
    network.use(
      http.get(URI, () => new HttpResponse(null, { status: 302, headers: { location: '/elsewhere' } })),
    );
    expect(await setup().resolver.resolve(URI)).toMatchObject({
      ok: false,
      description: UNUSABLE,
      detail: expect.stringMatching(/302/),
    });
    network.use(http.get(URI, () => new HttpResponse('x'.repeat(2000), { status: 200 })));
    expect(await setup({ maxBodyBytes: 1000 }).resolver.resolve(URI)).toMatchObject({
      ok: false,
      description: UNUSABLE,
      detail: expect.stringMatching(/larger than 1000 bytes/),
    });
    network.use(http.get(URI, () => new HttpResponse('{not json', { status: 200 })));
    expect(await setup().resolver.resolve(URI)).toMatchObject({
      ok: false,
      description: UNUSABLE,
      detail: expect.stringMatching(/not valid UTF-8 JSON/),
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
      description: expect.stringMatching(/too many key-set fetches for this address/),
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

describe('jwks_uri fetches follow the tenant fetch allowlist (allowedDomains): nothing else is fetched', () => {
  it('with no allowed domain, no key set is fetched at all', async () => {
    serve({ keys: [KEY] });
    const { resolver, fetches } = setup();
    expect(await resolver.resolve(URI, { allowedDomains: [] })).toMatchObject({
      ok: false,
      description: expect.stringMatching(/app\.example is not allowed/),
    });
    expect(fetches()).toBe(0);
  });

  it('a jwks_uri outside the allowlist is refused before any request; one inside is fetched', async () => {
    serve({ keys: [KEY] });
    const { resolver, fetches } = setup();
    expect(await resolver.resolve(URI, { allowedDomains: ['other.example'] })).toMatchObject({ ok: false });
    expect(fetches()).toBe(0);
    expect(await resolver.resolve(URI, { allowedDomains: ['*.other.example', 'app.example'] })).toMatchObject(
      { ok: true },
    );
    expect(fetches()).toBe(1);
  });
});

describe('a failed key-set fetch tells the caller nothing the peer answered (no status, body or content type)', () => {
  it.each([
    [
      'an HTTP error page',
      () =>
        new HttpResponse('internal admin page 10.0.0.7', {
          status: 404,
          headers: { 'content-type': 'text/html' },
        }),
    ],
    [
      'a body that is not JSON',
      () =>
        new HttpResponse('internal admin page 10.0.0.7', {
          status: 200,
          headers: { 'content-type': 'text/plain' },
        }),
    ],
    ['JSON that is not a key set', () => HttpResponse.json({ admin: 'internal admin page 10.0.0.7' })],
  ])('%s: one fixed description; the detail only in the debug log', async (_name, answer) => {
    network.use(http.get(URI, answer));
    const warned: unknown[] = [];
    const debugged: unknown[] = [];
    const { resolver } = setup({
      logger: {
        debug: (fields, message) => debugged.push([fields, message]),
        info: () => {},
        warn: (fields, message) => warned.push([fields, message]),
        error: () => {},
      },
    });
    const resolution = await resolver.resolve(URI);
    expect(resolution).toMatchObject({ ok: false, description: UNUSABLE });
    expect(JSON.stringify(warned)).not.toMatch(/404|admin|10\.0\.0\.7|text\/|JSON|Unexpected/);
    expect(warned).toHaveLength(1);
    expect(debugged).toHaveLength(1);
  });
});

describe('negative caching: a key set that does not exist is not fetched again for negativeTtlSeconds', () => {
  it('a 404 is remembered past failureTtlSeconds, then fetched again', async () => {
    network.use(http.get(URI, () => new HttpResponse(null, { status: 404 })));
    const { resolver, clock, fetches } = setup({ failureTtlSeconds: 10, negativeTtlSeconds: 300 });
    await resolver.resolve(URI);
    clock.advance(60_000);
    expect(await resolver.resolve(URI, { refresh: true })).toMatchObject({ ok: false });
    expect(fetches()).toBe(1);
    clock.advance(240_000);
    await resolver.resolve(URI);
    expect(fetches()).toBe(2);
  });
});

describe('fetchRateLimit: first fetches charged to the requester, refetches of a known set to that set', () => {
  const OTHER = 'https://app.example/other/jwks.json';
  const limiter = () => ({ limiter: createMemoryRateLimiter(), limit: 2, windowSeconds: 60, knownLimit: 2 });

  it("a stranger spending its budget on a host stops neither another address's first fetch nor a known set's refresh", async () => {
    serve({ keys: [KEY] }, { headers: { 'cache-control': 'max-age=60' } });
    network.use(
      http.get(OTHER, () => HttpResponse.json({ keys: [KEY] })),
      http.get('https://app.example/missing/:n', () => new HttpResponse(null, { status: 404 })),
    );
    const { resolver, clock, fetches } = setup({ fetchRateLimit: limiter(), refetchThrottleSeconds: 1 });
    expect(await resolver.resolve(URI, { requesterIp: '192.0.2.1' })).toMatchObject({ ok: true });
    for (let n = 0; n < 5; n += 1) {
      await resolver.resolve(`https://app.example/missing/${n}`, { requesterIp: '203.0.113.66' });
    }
    expect(fetches()).toBe(3);
    expect(await resolver.resolve(OTHER, { requesterIp: '203.0.113.66' })).toMatchObject({
      ok: false,
      detail: 'fetch_rate_limited',
    });
    // Another address: its own budget.
    expect(await resolver.resolve(OTHER, { requesterIp: '192.0.2.2' })).toMatchObject({ ok: true });
    // The known set is refreshed (an unknown kid), even on the stranger's request: the set's own allowance.
    clock.advance(2000);
    expect(await resolver.resolve(URI, { refresh: true, requesterIp: '203.0.113.66' })).toMatchObject({
      ok: true,
      cached: false,
    });
    clock.advance(2000);
    expect(await resolver.resolve(URI, { refresh: true })).toMatchObject({ ok: true, cached: false });
    // Its allowance spent, a further refresh keeps the cached set.
    clock.advance(2000);
    expect(await resolver.resolve(URI, { refresh: true })).toMatchObject({ ok: true, cached: true });
    expect(fetches()).toBe(6);
  });
});
