import type { Logger } from '@keyhold/core';
import { createManualClock, createMemoryRateLimiter } from '@keyhold/core';
import { delay, HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { CimdResolverOptions } from '../../src/cimd/resolver.js';
import { createCimdResolver } from '../../src/cimd/resolver.js';
import { createSafeFetch } from '../../src/cimd/safe-fetch.js';
import type { CimdResolver } from '../../src/cimd/types.js';
import type { CimdFetchAttributes } from '../../src/metrics-types.js';

const CLIENT_ID = 'https://app.example/oauth/client.json';
const ALLOWED = { allowedDomains: ['app.example'] } as const;

function documentFor(clientId: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    client_id: clientId,
    client_name: 'Example App',
    redirect_uris: ['https://app.example/cb'],
    ...extra,
  };
}

const server = setupServer();
const requests: Request[] = [];
const unhandled: string[] = [];
server.events.on('request:start', ({ request }) => {
  requests.push(request);
});
server.events.on('request:unhandled', ({ request }) => {
  unhandled.push(`${request.method} ${request.url}`);
});

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => {
  server.resetHandlers();
  requests.length = 0;
  expect(unhandled.splice(0)).toEqual([]);
});
afterAll(() => server.close());

function setup(options: CimdResolverOptions = {}): {
  resolver: CimdResolver;
  clock: ReturnType<typeof createManualClock>;
  fetches: CimdFetchAttributes[];
  warnings: Record<string, unknown>[];
} {
  const clock = createManualClock(Date.parse('2026-01-01T00:00:00Z'));
  const fetches: CimdFetchAttributes[] = [];
  const warnings: Record<string, unknown>[] = [];
  const logger: Logger = {
    debug: () => {},
    info: () => {},
    warn: (fields) => warnings.push(fields),
    error: () => {},
  };
  const resolver = createCimdResolver({
    // msw intercepts the global fetch; it is looked up per call because msw patches it in beforeAll.
    fetch: (url, init) => fetch(url, init),
    clock,
    logger,
    metrics: { event: () => {}, cimdFetch: (attributes) => fetches.push(attributes) },
    ...options,
  });
  return { resolver, clock, fetches, warnings };
}

function serveDocument(
  body: Record<string, unknown> = documentFor(CLIENT_ID),
  init: ResponseInit = {},
): void {
  server.use(http.get(CLIENT_ID, () => HttpResponse.json(body, init)));
}

describe('URL rules: a metadata-document client_id is a canonical https URL with a path (not_https)', () => {
  it.each([
    ['http://app.example/oauth/client.json', 'https scheme'],
    ['https://user:pw@app.example/oauth/client.json', 'user name or password'],
    ['https://app.example/oauth/client.json#frag', 'fragment'],
    ['https://app.example/oauth/client.json#', 'fragment'],
    ['https://app.example/oauth/../client.json', '".." path segments'],
    ['https://app.example/./client.json', 'path segments'],
    ['https://app.example/oauth/%2e%2e/client.json', '".." path segments'],
    ['https://app.example/', 'must have a path'],
    ['https://app.example', 'must have a path'],
    ['https://APP.example/oauth/client.json', 'canonical form'],
    ['https://app.example:443/oauth/client.json', 'canonical form'],
    ['https://app example/x', 'not a valid URL'],
  ])('refuses %s (%s) without a request', async (clientId, reason) => {
    const { resolver, fetches } = setup();
    const resolution = await resolver.resolve(clientId, { allowedDomains: ['*'] });
    expect(resolution).toMatchObject({ ok: false, error: 'not_https' });
    expect(!resolution.ok && resolution.description).toContain(reason);
    expect(requests).toHaveLength(0);
    expect(fetches).toEqual([{ status: 'error', cached: false, cimd_error: 'not_https' }]);
  });

  it('accepts a query string and a non-default port', async () => {
    const clientId = 'https://app.example:8443/client?v=2';
    server.use(http.get(clientId, () => HttpResponse.json(documentFor(clientId))));
    const { resolver } = setup();
    expect(await resolver.resolve(clientId, ALLOWED)).toMatchObject({ ok: true });
  });
});

describe('allowlist: the tenant domain allowlist is checked before any network request (domain_not_allowed)', () => {
  it('refuses a host that is not listed and makes no request', async () => {
    serveDocument();
    const { resolver, fetches } = setup();
    const resolution = await resolver.resolve(CLIENT_ID, { allowedDomains: ['other.example'] });
    expect(resolution).toMatchObject({ ok: false, error: 'domain_not_allowed' });
    expect(requests).toHaveLength(0);
    expect(fetches).toEqual([{ status: 'error', cached: false, cimd_error: 'domain_not_allowed' }]);
  });

  it('refuses everything with an empty allowlist', async () => {
    const { resolver } = setup();
    expect(await resolver.resolve(CLIENT_ID, { allowedDomains: [] })).toMatchObject({
      error: 'domain_not_allowed',
    });
    expect(requests).toHaveLength(0);
  });

  it('an entry allows its exact host and its subdomains, never a look-alike suffix', async () => {
    const sub = 'https://eu.app.example/client.json';
    server.use(http.get(sub, () => HttpResponse.json(documentFor(sub))));
    const { resolver } = setup();
    expect(await resolver.resolve(sub, ALLOWED)).toMatchObject({ ok: true });
    expect(await resolver.resolve('https://evilapp.example/client.json', ALLOWED)).toMatchObject({
      error: 'domain_not_allowed',
    });
    expect(await resolver.resolve('https://app.example.evil.test/client.json', ALLOWED)).toMatchObject({
      error: 'domain_not_allowed',
    });
    expect(requests.map((request) => request.url)).toEqual([sub]);
  });

  it('"*." prefixes, case and trailing dots in entries are normalised; "*" allows any host', async () => {
    serveDocument();
    const { resolver } = setup();
    expect(await resolver.resolve(CLIENT_ID, { allowedDomains: ['*.APP.example.'] })).toMatchObject({
      ok: true,
    });
    const { resolver: open } = setup();
    expect(await open.resolve(CLIENT_ID, { allowedDomains: ['*'] })).toMatchObject({ ok: true });
  });
});

describe('document validation with zod', () => {
  it('returns the validated document, dropping unknown members', async () => {
    serveDocument(documentFor(CLIENT_ID, { logo_uri: 'https://app.example/logo.png', extra: 'dropped' }));
    const { resolver, fetches } = setup();
    const resolution = await resolver.resolve(CLIENT_ID, ALLOWED);
    expect(resolution).toEqual({
      ok: true,
      cached: false,
      document: {
        client_id: CLIENT_ID,
        client_name: 'Example App',
        redirect_uris: ['https://app.example/cb'],
        logo_uri: 'https://app.example/logo.png',
      },
    });
    expect(requests[0]?.headers.get('accept')).toBe('application/json');
    expect(fetches).toEqual([{ status: 'success', cached: false }]);
  });

  it('client_id must equal the URL exactly (client_id_mismatch)', async () => {
    serveDocument(documentFor(`${CLIENT_ID}/`));
    const { resolver } = setup();
    expect(await resolver.resolve(CLIENT_ID, ALLOWED)).toMatchObject({
      ok: false,
      error: 'client_id_mismatch',
    });
  });

  it.each([
    ['absent', { redirect_uris: undefined }],
    ['empty', { redirect_uris: [] }],
    ['not an array', { redirect_uris: 'https://app.example/cb' }],
  ])('redirect_uris must be present (missing_redirect_uris: %s)', async (_case, extra) => {
    serveDocument(documentFor(CLIENT_ID, extra));
    const { resolver } = setup();
    expect(await resolver.resolve(CLIENT_ID, ALLOWED)).toMatchObject({
      ok: false,
      error: 'missing_redirect_uris',
    });
  });

  it.each([
    ['client_name absent', { client_name: undefined }, 'client_name'],
    ['client_name blank', { client_name: '  ' }, 'client_name'],
    ['a relative redirect URI', { redirect_uris: ['/cb'] }, 'redirect_uris.0'],
    ['a shared-secret auth method', { token_endpoint_auth_method: 'client_secret_basic' }, 'shared-secret'],
    ['client_secret_post', { token_endpoint_auth_method: 'client_secret_post' }, 'shared-secret'],
    ['a client_secret member', { client_secret: 's3cret' }, 'client_secret'],
    ['a wrongly typed member', { grant_types: 'authorization_code' }, 'grant_types'],
  ])('refuses an invalid document (invalid_json: %s)', async (_case, extra, mentioned) => {
    serveDocument(documentFor(CLIENT_ID, extra));
    const { resolver } = setup();
    const resolution = await resolver.resolve(CLIENT_ID, ALLOWED);
    expect(resolution).toMatchObject({ ok: false, error: 'invalid_json' });
    expect(!resolution.ok && resolution.description).toContain(mentioned);
  });

  it('accepts the public-client method none and private_key_jwt', async () => {
    serveDocument(documentFor(CLIENT_ID, { token_endpoint_auth_method: 'none' }));
    const { resolver } = setup();
    expect(await resolver.resolve(CLIENT_ID, ALLOWED)).toMatchObject({
      ok: true,
      document: { token_endpoint_auth_method: 'none' },
    });
  });

  it.each([
    ['not JSON', 'client_name: nope'],
    ['a JSON array', '[1,2]'],
    ['JSON null', 'null'],
    ['not UTF-8', new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d])],
  ])('a body that is %s is invalid_json', async (_case, body) => {
    server.use(
      http.get(CLIENT_ID, () => new HttpResponse(body, { headers: { 'content-type': 'application/json' } })),
    );
    const { resolver } = setup();
    expect(await resolver.resolve(CLIENT_ID, ALLOWED)).toMatchObject({ ok: false, error: 'invalid_json' });
  });
});

describe('fetching: status, redirects, size and time limits', () => {
  it('a non-200 answer is http_error', async () => {
    server.use(http.get(CLIENT_ID, () => new HttpResponse('gone', { status: 404 })));
    const { resolver } = setup();
    const resolution = await resolver.resolve(CLIENT_ID, ALLOWED);
    expect(resolution).toMatchObject({ ok: false, error: 'http_error' });
    expect(!resolution.ok && resolution.description).toContain('404');
  });

  it('a redirect is not followed (http_error)', async () => {
    const target = vi.fn(() => HttpResponse.json(documentFor(CLIENT_ID)));
    server.use(
      http.get(CLIENT_ID, () => HttpResponse.redirect('https://app.example/elsewhere.json', 302)),
      http.get('https://app.example/elsewhere.json', target),
    );
    const { resolver, warnings } = setup();
    const resolution = await resolver.resolve(CLIENT_ID, ALLOWED);
    expect(resolution).toMatchObject({
      ok: false,
      error: 'http_error',
      detail: expect.stringContaining('elsewhere'),
    });
    expect(target).not.toHaveBeenCalled();
    expect(warnings[0]).toMatchObject({
      cimd_error: 'http_error',
      detail: expect.stringContaining('elsewhere'),
    });
  });

  it('a network failure is fetch_failed; the detail goes to the log, not the description', async () => {
    server.use(http.get(CLIENT_ID, () => HttpResponse.error()));
    const { resolver, warnings } = setup();
    const resolution = await resolver.resolve(CLIENT_ID, ALLOWED);
    expect(resolution).toMatchObject({
      ok: false,
      error: 'fetch_failed',
      description: 'the client metadata document could not be fetched',
    });
    expect(warnings).toEqual([
      expect.objectContaining({
        event: 'cimd_fetch_failed',
        reason: 'fetch_failed',
        clientId: CLIENT_ID,
        detail: expect.any(String),
      }),
    ]);
  });

  it('a declared Content-Length over 5 KB is too_large', async () => {
    const big = JSON.stringify(documentFor(CLIENT_ID, { padding: 'x'.repeat(6000) }));
    server.use(
      http.get(CLIENT_ID, () => new HttpResponse(big, { headers: { 'content-length': `${big.length}` } })),
    );
    const { resolver } = setup();
    expect(await resolver.resolve(CLIENT_ID, ALLOWED)).toMatchObject({ ok: false, error: 'too_large' });
  });

  it('the 5 KB cap is enforced while streaming: an endless body without a length stops at the cap', async () => {
    let pulled = 0;
    server.use(
      http.get(
        CLIENT_ID,
        () =>
          new HttpResponse(
            new ReadableStream<Uint8Array>({
              pull(controller) {
                pulled += 1;
                controller.enqueue(new Uint8Array(1024).fill(0x20));
              },
            }),
          ),
      ),
    );
    const { resolver } = setup();
    expect(await resolver.resolve(CLIENT_ID, ALLOWED)).toMatchObject({ ok: false, error: 'too_large' });
    expect(pulled).toBeLessThan(20);
  });

  it('a document of exactly 5 120 bytes is accepted', async () => {
    const base = JSON.stringify(documentFor(CLIENT_ID, { padding: '' }));
    const exact = JSON.stringify(documentFor(CLIENT_ID, { padding: 'x'.repeat(5120 - base.length) }));
    expect(exact.length).toBe(5120);
    server.use(http.get(CLIENT_ID, () => new HttpResponse(exact)));
    const { resolver } = setup();
    expect(await resolver.resolve(CLIENT_ID, ALLOWED)).toMatchObject({ ok: true });
  });

  it('no complete answer within 10 s is timeout', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      server.use(
        http.get(CLIENT_ID, async () => {
          await delay('infinite');
          return HttpResponse.json(documentFor(CLIENT_ID));
        }),
      );
      const { resolver, fetches } = setup();
      const pending = resolver.resolve(CLIENT_ID, ALLOWED);
      await vi.advanceTimersByTimeAsync(9_999);
      let settled = false;
      void pending.then(() => {
        settled = true;
      });
      await vi.advanceTimersByTimeAsync(0);
      expect(settled).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      expect(await pending).toMatchObject({ ok: false, error: 'timeout' });
      expect(fetches).toEqual([{ status: 'error', cached: false, cimd_error: 'timeout' }]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('a host resolving to a private address is forbidden_address (SSRF), checked by the default fetcher', async () => {
    const lookups: string[] = [];
    const resolver = createCimdResolver({
      fetch: createSafeFetch({
        lookup: async (hostname) => {
          lookups.push(hostname);
          return [{ address: '10.0.0.7', family: 4 }];
        },
      }),
    });
    const resolution = await resolver.resolve(CLIENT_ID, ALLOWED);
    expect(resolution).toMatchObject({
      ok: false,
      error: 'forbidden_address',
      detail: expect.stringContaining('10.0.0.7'),
    });
    expect(!resolution.ok && resolution.description).not.toContain('10.0.0.7');
    expect(lookups).toEqual(['app.example']);
    // msw patches `https.request`, which the safe fetch reads when it first connects: msw sees the request
    // (and lets it through) before the safe fetch's own lookup refuses the address. Not a mocked request.
    expect(unhandled.splice(0)).toEqual(['GET https://app.example/oauth/client.json']);
  });

  it('an IP-literal host in a private range is forbidden_address without any lookup', async () => {
    const lookup = vi.fn(async () => [{ address: '93.184.215.14', family: 4 }]);
    const resolver = createCimdResolver({ fetch: createSafeFetch({ lookup }) });
    expect(
      await resolver.resolve('https://169.254.169.254/latest/meta-data', { allowedDomains: ['*'] }),
    ).toMatchObject({ ok: false, error: 'forbidden_address' });
    expect(lookup).not.toHaveBeenCalled();
  });
});

describe('cache: bounded LRU, lifetime from Cache-Control within bounds, clock injected', () => {
  it('a second resolution is served from the cache without a request', async () => {
    serveDocument();
    const { resolver, fetches } = setup();
    await resolver.resolve(CLIENT_ID, ALLOWED);
    const second = await resolver.resolve(CLIENT_ID, ALLOWED);
    expect(second).toMatchObject({ ok: true, cached: true });
    expect(requests).toHaveLength(1);
    expect(fetches).toEqual([
      { status: 'success', cached: false },
      { status: 'success', cached: true },
    ]);
  });

  it('the allowlist still applies to a cached document', async () => {
    serveDocument();
    const { resolver } = setup();
    await resolver.resolve(CLIENT_ID, ALLOWED);
    expect(await resolver.resolve(CLIENT_ID, { allowedDomains: ['other.example'] })).toMatchObject({
      error: 'domain_not_allowed',
    });
  });

  it('max-age sets the lifetime', async () => {
    serveDocument(documentFor(CLIENT_ID), { headers: { 'cache-control': 'public, max-age=600' } });
    const { resolver, clock } = setup();
    await resolver.resolve(CLIENT_ID, ALLOWED);
    clock.advance(599_000);
    expect(await resolver.resolve(CLIENT_ID, ALLOWED)).toMatchObject({ cached: true });
    clock.advance(1_000);
    expect(await resolver.resolve(CLIENT_ID, ALLOWED)).toMatchObject({ cached: false });
    expect(requests).toHaveLength(2);
  });

  it('without Cache-Control the lifetime is 300 s', async () => {
    serveDocument();
    const { resolver, clock } = setup();
    await resolver.resolve(CLIENT_ID, ALLOWED);
    clock.advance(299_999);
    expect(await resolver.resolve(CLIENT_ID, ALLOWED)).toMatchObject({ cached: true });
    clock.advance(1);
    expect(await resolver.resolve(CLIENT_ID, ALLOWED)).toMatchObject({ cached: false });
  });

  it.each([
    ['max-age=1', 60_000],
    ['no-cache', 60_000],
    ['no-store', 60_000],
    ['max-age=999999999', 86_400_000],
  ])('Cache-Control "%s" is clamped to a lifetime of %i ms', async (header, lifetimeMs) => {
    serveDocument(documentFor(CLIENT_ID), { headers: { 'cache-control': header } });
    const { resolver, clock } = setup();
    await resolver.resolve(CLIENT_ID, ALLOWED);
    clock.advance(lifetimeMs - 1);
    expect(await resolver.resolve(CLIENT_ID, ALLOWED)).toMatchObject({ cached: true });
    clock.advance(1);
    expect(await resolver.resolve(CLIENT_ID, ALLOWED)).toMatchObject({ cached: false });
  });

  it('holds at most maxEntries documents, evicting the least recently used', async () => {
    const ids = ['a', 'b', 'c'].map((name) => `https://app.example/${name}.json`);
    server.use(...ids.map((id) => http.get(id, () => HttpResponse.json(documentFor(id)))));
    const { resolver } = setup({ maxEntries: 2 });
    for (const id of ids) await resolver.resolve(id, ALLOWED);
    expect(await resolver.resolve(ids[2]!, ALLOWED)).toMatchObject({ cached: true });
    expect(await resolver.resolve(ids[0]!, ALLOWED)).toMatchObject({ cached: false });
  });

  it('concurrent resolutions of one URL share one request', async () => {
    serveDocument();
    const { resolver, fetches } = setup();
    const results = await Promise.all(Array.from({ length: 10 }, () => resolver.resolve(CLIENT_ID, ALLOWED)));
    expect(results.every((result) => result.ok)).toBe(true);
    expect(requests).toHaveLength(1);
    expect(fetches).toHaveLength(10);
  });
});

describe('ETag revalidation with If-None-Match', () => {
  it('a stale entry is revalidated; 304 keeps the entry and renews its lifetime', async () => {
    let served = 0;
    server.use(
      http.get(CLIENT_ID, ({ request }) => {
        served += 1;
        if (request.headers.get('if-none-match') === '"v1"') {
          return new HttpResponse(null, {
            status: 304,
            headers: { etag: '"v1"', 'cache-control': 'max-age=120' },
          });
        }
        return HttpResponse.json(documentFor(CLIENT_ID), {
          headers: { etag: '"v1"', 'cache-control': 'max-age=60' },
        });
      }),
    );
    const { resolver, clock, fetches } = setup();
    const first = await resolver.resolve(CLIENT_ID, ALLOWED);
    expect(requests[0]?.headers.get('if-none-match')).toBeNull();
    clock.advance(60_000);
    const revalidated = await resolver.resolve(CLIENT_ID, ALLOWED);
    expect(requests[1]?.headers.get('if-none-match')).toBe('"v1"');
    expect(revalidated).toEqual({ ok: true, cached: true, document: first.ok ? first.document : undefined });
    clock.advance(119_000);
    expect(await resolver.resolve(CLIENT_ID, ALLOWED)).toMatchObject({ ok: true, cached: true });
    expect(served).toBe(2);
    expect(fetches.map((attributes) => attributes.cached)).toEqual([false, true, true]);
  });

  it('a 200 answer to revalidation replaces the document', async () => {
    let version = 1;
    server.use(
      http.get(CLIENT_ID, () =>
        HttpResponse.json(documentFor(CLIENT_ID, { client_name: `App v${version}` }), {
          headers: { etag: `"v${version}"` },
        }),
      ),
    );
    const { resolver, clock } = setup();
    await resolver.resolve(CLIENT_ID, ALLOWED);
    version = 2;
    clock.advance(300_000);
    expect(await resolver.resolve(CLIENT_ID, ALLOWED)).toMatchObject({
      cached: false,
      document: { client_name: 'App v2' },
    });
    expect(requests[1]?.headers.get('if-none-match')).toBe('"v1"');
  });
});

describe('failures are cached only briefly', () => {
  it('a failure is remembered for 10 s, then the document is fetched again', async () => {
    let fail = true;
    server.use(
      http.get(CLIENT_ID, () =>
        fail ? new HttpResponse(null, { status: 503 }) : HttpResponse.json(documentFor(CLIENT_ID)),
      ),
    );
    const { resolver, clock, fetches } = setup();
    expect(await resolver.resolve(CLIENT_ID, ALLOWED)).toMatchObject({ error: 'http_error' });
    fail = false;
    clock.advance(9_999);
    expect(await resolver.resolve(CLIENT_ID, ALLOWED)).toMatchObject({ error: 'http_error' });
    expect(requests).toHaveLength(1);
    clock.advance(1);
    expect(await resolver.resolve(CLIENT_ID, ALLOWED)).toMatchObject({ ok: true, cached: false });
    expect(fetches).toEqual([
      { status: 'error', cached: false, cimd_error: 'http_error' },
      { status: 'error', cached: true, cimd_error: 'http_error' },
      { status: 'success', cached: false },
    ]);
  });
});

describe('fetch budget per requester and host (fetchRateLimit): only network fetches count (fetch_rate_limited)', () => {
  const limited = (limit = 2, windowSeconds = 60) =>
    setup({ fetchRateLimit: { limiter: createMemoryRateLimiter(), limit, windowSeconds } });
  const idsOn = (host: string, count: number) =>
    Array.from({ length: count }, (_, i) => `https://${host}/client-${i}.json`);
  const serveAll = (ids: string[]) =>
    server.use(...ids.map((id) => http.get(id, () => HttpResponse.json(documentFor(id)))));

  it('refuses a fetch over the host budget without a request, with retryAfterSeconds', async () => {
    const ids = idsOn('app.example', 3);
    serveAll(ids);
    const { resolver, clock, fetches } = limited(2);
    clock.set(Date.parse('2026-01-01T00:00:15Z'));
    expect(await resolver.resolve(ids[0]!, ALLOWED)).toMatchObject({ ok: true });
    expect(await resolver.resolve(ids[1]!, ALLOWED)).toMatchObject({ ok: true });
    expect(await resolver.resolve(ids[2]!, ALLOWED)).toEqual({
      ok: false,
      error: 'fetch_rate_limited',
      description:
        'too many client metadata document fetches from app.example for this address; retry in 45 s',
      retryAfterSeconds: 45,
    });
    expect(requests).toHaveLength(2);
    expect(fetches.at(-1)).toEqual({ status: 'error', cached: false, cimd_error: 'fetch_rate_limited' });
  });

  it('does not count cache hits or resolutions joined to one in flight', async () => {
    serveDocument();
    const { resolver } = limited(1);
    await Promise.all(Array.from({ length: 5 }, () => resolver.resolve(CLIENT_ID, ALLOWED)));
    for (let i = 0; i < 5; i++) {
      expect(await resolver.resolve(CLIENT_ID, ALLOWED)).toMatchObject({ ok: true, cached: true });
    }
    expect(requests).toHaveLength(1);
  });

  it('keeps a budget per host', async () => {
    const first = idsOn('app.example', 2);
    const other = idsOn('other.example', 1);
    serveAll([...first, ...other]);
    const { resolver } = limited(1);
    const allowed = { allowedDomains: ['app.example', 'other.example'] };
    expect(await resolver.resolve(first[0]!, allowed)).toMatchObject({ ok: true });
    expect(await resolver.resolve(first[1]!, allowed)).toMatchObject({ error: 'fetch_rate_limited' });
    expect(await resolver.resolve(other[0]!, allowed)).toMatchObject({ ok: true });
  });

  it('fetches again once the window turns (a refusal is not cached)', async () => {
    const ids = idsOn('app.example', 2);
    serveAll(ids);
    const { resolver, clock } = limited(1, 60);
    clock.set(Date.parse('2026-01-01T00:00:00Z'));
    await resolver.resolve(ids[0]!, ALLOWED);
    expect(await resolver.resolve(ids[1]!, ALLOWED)).toMatchObject({ error: 'fetch_rate_limited' });
    clock.advance(60_000);
    expect(await resolver.resolve(ids[1]!, ALLOWED)).toMatchObject({ ok: true, cached: false });
  });

  it('does not count refusals made before the network (allowlist, URL rules)', async () => {
    serveDocument();
    const { resolver } = limited(1);
    await resolver.resolve('https://evil.example/client.json', ALLOWED);
    await resolver.resolve('http://app.example/client.json', ALLOWED);
    expect(await resolver.resolve(CLIENT_ID, ALLOWED)).toMatchObject({ ok: true });
  });

  it.each([[{ limit: 0 }], [{ windowSeconds: 0.5 }]])('rejects a bad rule %o at creation', (rule) => {
    expect(() =>
      createCimdResolver({ fetchRateLimit: { limiter: createMemoryRateLimiter(), ...rule } }),
    ).toThrow(expect.objectContaining({ name: 'OAuthCoreError', code: 'ERR_INVALID_OPTIONS' }));
  });
});

describe('fetch budget per requester and host: documents and jwks_uri key sets draw from one budget', () => {
  const JWKS_URI = 'https://app.example/.well-known/jwks.json';
  const KEY = { kty: 'OKP', crv: 'Ed25519', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo', kid: 'k1' };
  const serveKeys = () => server.use(http.get(JWKS_URI, () => HttpResponse.json({ keys: [KEY] })));
  const limited = (limit: number) =>
    setup({ fetchRateLimit: { limiter: createMemoryRateLimiter(), limit, windowSeconds: 60 } });

  it('refuses a key-set fetch, without a request, once document fetches spent the host budget', async () => {
    serveDocument();
    serveKeys();
    const { resolver, warnings } = limited(1);
    expect(await resolver.resolve(CLIENT_ID, ALLOWED)).toMatchObject({ ok: true });
    expect(await resolver.jwks?.resolve(JWKS_URI)).toEqual({
      ok: false,
      description: 'too many key-set fetches for this address; retry in 60 s',
      detail: 'fetch_rate_limited',
    });
    expect(requests.map((request) => request.url)).toEqual([CLIENT_ID]);
    expect(warnings.at(-1)).toMatchObject({ event: 'jwks_fetch_failed', jwksUri: JWKS_URI });
  });

  it('refuses a document fetch with fetch_rate_limited once key-set fetches spent the host budget', async () => {
    serveDocument();
    serveKeys();
    const { resolver } = limited(1);
    expect(await resolver.jwks?.resolve(JWKS_URI)).toMatchObject({ ok: true, cached: false });
    expect(await resolver.resolve(CLIENT_ID, ALLOWED)).toMatchObject({
      ok: false,
      error: 'fetch_rate_limited',
      retryAfterSeconds: 60,
    });
    expect(requests.map((request) => request.url)).toEqual([JWKS_URI]);
  });

  it('does not remember a refused key-set fetch: once the window turns, the set is fetched', async () => {
    serveDocument();
    serveKeys();
    const { resolver, clock } = limited(1);
    await resolver.resolve(CLIENT_ID, ALLOWED);
    expect(await resolver.jwks?.resolve(JWKS_URI)).toMatchObject({ ok: false });
    clock.advance(60_000);
    expect(await resolver.jwks?.resolve(JWKS_URI)).toEqual({ ok: true, keys: [KEY], cached: false });
  });

  it('keeps counting per host: another host still has its budget', async () => {
    serveDocument();
    const other = 'https://keys.example/jwks.json';
    server.use(http.get(other, () => HttpResponse.json({ keys: [KEY] })));
    const { resolver } = limited(1);
    await resolver.resolve(CLIENT_ID, ALLOWED);
    expect(await resolver.jwks?.resolve(other)).toMatchObject({ ok: true });
  });
});

describe('negative caching: a document that does not exist or is not valid is not fetched again for a while', () => {
  it.each([
    ['a 404', () => new HttpResponse(null, { status: 404 })],
    ['a document that is not valid', () => HttpResponse.json({ client_id: 'https://elsewhere.example/x' })],
  ])('%s is remembered for negativeTtlSeconds (300), well past failureTtlSeconds', async (_name, answer) => {
    server.use(http.get(CLIENT_ID, answer));
    const { resolver, clock } = setup();
    expect(await resolver.resolve(CLIENT_ID, ALLOWED)).toMatchObject({ ok: false });
    clock.advance(60_000);
    expect(await resolver.resolve(CLIENT_ID, ALLOWED)).toMatchObject({ ok: false });
    expect(requests).toHaveLength(1);
    clock.advance(240_000);
    await resolver.resolve(CLIENT_ID, ALLOWED);
    expect(requests).toHaveLength(2);
  });

  it('failures are kept apart: requests for missing documents do not evict a cached document', async () => {
    serveDocument();
    server.use(http.get('https://app.example/missing/:n', () => new HttpResponse(null, { status: 404 })));
    const { resolver } = setup({ maxEntries: 2 });
    await resolver.resolve(CLIENT_ID, ALLOWED);
    for (let n = 0; n < 5; n += 1) await resolver.resolve(`https://app.example/missing/${n}`, ALLOWED);
    expect(await resolver.resolve(CLIENT_ID, ALLOWED)).toMatchObject({ ok: true, cached: true });
    expect(requests).toHaveLength(6);
  });
});

describe('a stranger spends its own fetch budget: first fetches per requester and host, refetches per document', () => {
  const STRANGER = '203.0.113.66';
  const USER_IP = '192.0.2.10';
  const limited = () =>
    setup({
      fetchRateLimit: { limiter: createMemoryRateLimiter(), limit: 3, windowSeconds: 60, knownLimit: 3 },
    });

  it('asking for missing documents from one address stops neither a first sign-in elsewhere nor a revalidation', async () => {
    const known = 'https://app.example/known.json';
    const fresh = 'https://app.example/never-fetched.json';
    server.use(
      http.get(known, () =>
        HttpResponse.json(documentFor(known), { headers: { 'cache-control': 'max-age=60' } }),
      ),
      http.get(fresh, () => HttpResponse.json(documentFor(fresh))),
      http.get('https://app.example/missing/:n', () => new HttpResponse(null, { status: 404 })),
    );
    const { resolver, clock } = limited();
    expect(await resolver.resolve(known, { ...ALLOWED, requesterIp: USER_IP })).toMatchObject({ ok: true });
    for (let n = 0; n < 20; n += 1) {
      await resolver.resolve(`https://app.example/missing/${n}`, { ...ALLOWED, requesterIp: STRANGER });
    }
    expect(requests).toHaveLength(4);
    expect(await resolver.resolve(fresh, { ...ALLOWED, requesterIp: STRANGER })).toMatchObject({
      error: 'fetch_rate_limited',
    });
    // A user at another address signs in with a document never fetched before.
    expect(await resolver.resolve(fresh, { ...ALLOWED, requesterIp: USER_IP })).toMatchObject({
      ok: true,
      cached: false,
    });
    // The known document is revalidated once stale, whoever asks: its own allowance.
    clock.advance(61_000);
    expect(await resolver.resolve(known, { ...ALLOWED, requesterIp: STRANGER })).toMatchObject({
      ok: true,
      cached: false,
    });
    expect(requests).toHaveLength(6);
  });
});

describe('options are validated at creation', () => {
  it.each([
    [{ maxEntries: 0 }],
    [{ timeoutMs: -1 }],
    [{ maxBodyBytes: 1.5 }],
    [{ minMaxAgeSeconds: 100, maxMaxAgeSeconds: 10 }],
  ])('rejects %o', (options) => {
    expect(() => createCimdResolver(options)).toThrow(
      expect.objectContaining({ name: 'OAuthCoreError', code: 'ERR_INVALID_OPTIONS' }),
    );
  });
});

describe('negative caching spares known documents: a document fetched before is retried after failureTtlSeconds', () => {
  it('a 404 on revalidation is remembered for 10 s only', async () => {
    let missing = false;
    server.use(
      http.get(CLIENT_ID, () =>
        missing
          ? new HttpResponse(null, { status: 404 })
          : HttpResponse.json(documentFor(CLIENT_ID), { headers: { 'cache-control': 'max-age=60' } }),
      ),
    );
    const { resolver, clock } = setup();
    expect(await resolver.resolve(CLIENT_ID, ALLOWED)).toMatchObject({ ok: true });
    missing = true;
    clock.advance(61_000);
    expect(await resolver.resolve(CLIENT_ID, ALLOWED)).toMatchObject({ error: 'http_error' });
    missing = false;
    clock.advance(10_000);
    expect(await resolver.resolve(CLIENT_ID, ALLOWED)).toMatchObject({ ok: true, cached: false });
    expect(requests).toHaveLength(3);
  });
});
