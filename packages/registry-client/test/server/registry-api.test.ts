import { type Clock, createManualClock, type HandlerRequest, type RateLimiter } from '@keyhold/core';
import { afterEach, describe, expect, it } from 'vitest';
import { loadBundledProviders } from '../../src/bundled-providers.js';
import { RegistryError } from '../../src/errors.js';
import { createRegistryApiWithHandle } from '../../src/server/registry-api.js';
import { httpProvider, stdioProvider } from '../helpers/providers.js';
import { type Running, serveHandler } from '../helpers/serve.js';

const providers = {
  github: httpProvider('github', { name: 'GitHub' }),
  git: stdioProvider('git', { name: 'Git', description: 'Local repositories.' }),
  search: stdioProvider('search', { name: 'Search engine', description: 'A provider whose id is search.' }),
  notion: httpProvider('notion', { name: 'Notion', description: 'Pages and git-like history.' }),
};

let running: Running | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

async function serve(
  options: Parameters<typeof createRegistryApiWithHandle>[0] = {},
  trustProxy = false,
): Promise<string> {
  running = await serveHandler(createRegistryApiWithHandle({ providers, ...options }), { trustProxy });
  return running.url;
}

describe('GET /api/providers', () => {
  it('answers the map of id to McpProvider', async () => {
    const url = await serve();
    const response = await fetch(`${url}/api/providers`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('application/json');
    expect(await response.json()).toEqual(providers);
  });

  it('serves the bundled providers file when no providers are given', async () => {
    running = await serveHandler(createRegistryApiWithHandle());
    const body = (await (await fetch(`${running.url}/api/providers`)).json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(Object.keys(loadBundledProviders()).sort());
  });
});

describe('GET /api/providers/<id>', () => {
  it('answers one McpProvider', async () => {
    const url = await serve();
    const response = await fetch(`${url}/api/providers/github`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual(providers.github);
  });

  it('answers 404 with { error, providerId } for an unknown id', async () => {
    const url = await serve();
    const response = await fetch(`${url}/api/providers/unknown-thing`);
    expect(response.status).toBe(404);
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toEqual({ error: 'provider_not_found', providerId: 'unknown-thing' });
    expect(typeof body['error']).toBe('string');
  });

  it('decodes a percent-encoded id and echoes it in the 404 body', async () => {
    const url = await serve();
    const response = await fetch(`${url}/api/providers/no%20such`);
    expect(await response.json()).toEqual({ error: 'provider_not_found', providerId: 'no such' });
  });
});

describe('GET /api/providers/search?q=', () => {
  it('answers { results, query, count }, id and name matches first', async () => {
    const url = await serve();
    const response = await fetch(`${url}/api/providers/search?q=git`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { results: { id: string }[]; query: string; count: number };
    expect(body.query).toBe('git');
    expect(body.count).toBe(3);
    expect(body.results.map((p) => p.id)).toEqual(['git', 'github', 'notion']);
  });

  it('never takes the literal path "search" as a provider id', async () => {
    const url = await serve();
    const response = await fetch(`${url}/api/providers/search?q=engine`);
    const body = (await response.json()) as { results: { id: string }[] };
    expect(body.results.map((p) => p.id)).toEqual(['search']);
    expect(body).not.toHaveProperty('id');
  });

  it('answers 400 without q, with an empty q, and with q repeated', async () => {
    const url = await serve();
    for (const query of ['', '?q=', '?q=%20', '?q=a&q=b']) {
      const response = await fetch(`${url}/api/providers/search${query}`);
      expect(response.status, query).toBe(400);
      expect(((await response.json()) as { error: string }).error).toBe('invalid_request');
    }
  });
});

describe('GET /health', () => {
  it('answers { status: "ok" }, never cached', async () => {
    const url = await serve();
    const response = await fetch(`${url}/health`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok' });
    expect(response.headers.get('cache-control')).toBe('no-store');
  });
});

describe('caching: ETag, 304 and Cache-Control', () => {
  it('sends ETag and Cache-Control: public, max-age=300 on every provider answer', async () => {
    const url = await serve();
    for (const path of [
      '/api/providers',
      '/api/providers/git',
      '/api/providers/search?q=git',
      '/api/providers/x',
    ]) {
      const response = await fetch(`${url}${path}`);
      expect(response.headers.get('etag'), path).toMatch(/^"[A-Za-z0-9_-]+"$/);
      expect(response.headers.get('cache-control'), path).toBe('public, max-age=300');
    }
  });

  it('answers 304 without a body when If-None-Match carries the current ETag', async () => {
    const url = await serve();
    const first = await fetch(`${url}/api/providers/github`);
    const etag = first.headers.get('etag')!;
    for (const header of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const again = await fetch(`${url}/api/providers/github`, { headers: { 'if-none-match': header } });
      expect(again.status, header).toBe(304);
      expect(again.headers.get('etag')).toBe(etag);
      expect(await again.text()).toBe('');
    }
  });

  it('answers 200 when the ETag differs, and gives different resources different ETags', async () => {
    const url = await serve();
    const response = await fetch(`${url}/api/providers/github`, { headers: { 'if-none-match': '"stale"' } });
    expect(response.status).toBe(200);
    const other = await fetch(`${url}/api/providers/git`);
    expect(other.headers.get('etag')).not.toBe(response.headers.get('etag'));
  });

  it('changes the ETag when the data changes', async () => {
    const a = createRegistryApiWithHandle({ providers });
    const b = createRegistryApiWithHandle({
      providers: { ...providers, git: { ...providers.git, name: 'Git 2' } },
    });
    const request: HandlerRequest = {
      method: 'GET',
      path: '/api/providers',
      query: '',
      headers: {},
      body: '',
    };
    expect((await a(request)).headers['etag']).not.toBe((await b(request)).headers['etag']);
  });

  it('takes the max-age from cacheMaxAgeSeconds', async () => {
    const url = await serve({ cacheMaxAgeSeconds: 60 });
    expect((await fetch(`${url}/api/providers`)).headers.get('cache-control')).toBe('public, max-age=60');
  });
});

describe('CORS for GET (SPEC Authentication, Registry)', () => {
  it('allows any origin on answers', async () => {
    const url = await serve();
    const response = await fetch(`${url}/api/providers`, { headers: { origin: 'https://app.example' } });
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('access-control-expose-headers')).toContain('etag');
  });

  it('answers a preflight with 204 and the allowed methods', async () => {
    const url = await serve({ corsOrigin: 'https://app.example' });
    const response = await fetch(`${url}/api/providers/git`, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example', 'access-control-request-method': 'GET' },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe('https://app.example');
    expect(response.headers.get('access-control-allow-methods')).toBe('GET, HEAD, OPTIONS');
  });
});

describe('methods and unknown paths', () => {
  it('answers HEAD with headers only', async () => {
    const url = await serve();
    const response = await fetch(`${url}/api/providers/git`, { method: 'HEAD' });
    expect(response.status).toBe(200);
    expect(response.headers.get('etag')).toMatch(/^"/);
    expect(await response.text()).toBe('');
  });

  it('answers 405 with Allow for writes', async () => {
    const url = await serve();
    const response = await fetch(`${url}/api/providers`, { method: 'POST', body: '{}' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
  });

  it('answers 404 outside its paths', async () => {
    const url = await serve();
    expect((await fetch(`${url}/api/other`)).status).toBe(404);
    expect((await fetch(`${url}/`)).status).toBe(404);
  });
});

describe('rate limit: 100 requests per minute per IP (SPEC Limits)', () => {
  it('answers the 101st request in a minute with 429 and Retry-After', async () => {
    const clock = createManualClock(Date.parse('2026-01-01T00:00:10Z'));
    const url = await serve({ clock });
    for (let i = 1; i <= 100; i++) {
      const response = await fetch(`${url}/api/providers/git`);
      expect(response.status, `request ${i}`).toBe(200);
    }
    const rejected = await fetch(`${url}/api/providers/git`);
    expect(rejected.status).toBe(429);
    expect(rejected.headers.get('retry-after')).toBe('50');
    expect(rejected.headers.get('cache-control')).toBe('no-store');
    expect(((await rejected.json()) as { error: string }).error).toBe('rate_limited');
  });

  it('opens a new budget when the minute turns', async () => {
    const clock = createManualClock(Date.parse('2026-01-01T00:00:00Z'));
    const url = await serve({ clock, rateLimitPerWindow: 2 });
    await fetch(`${url}/api/providers`);
    await fetch(`${url}/api/providers`);
    expect((await fetch(`${url}/api/providers`)).status).toBe(429);
    clock.advance(60_000);
    expect((await fetch(`${url}/api/providers`)).status).toBe(200);
  });

  it('counts each client IP separately, from request.ip', async () => {
    const api = createRegistryApiWithHandle({ providers, rateLimitPerWindow: 1 });
    const request = (ip: string): HandlerRequest => ({
      method: 'GET',
      path: '/api/providers',
      query: '',
      headers: {},
      body: '',
      ip,
    });
    expect((await api(request('198.51.100.1'))).status).toBe(200);
    expect((await api(request('198.51.100.1'))).status).toBe(429);
    expect((await api(request('198.51.100.2'))).status).toBe(200);
  });

  it('ignores X-Forwarded-For unless the adapter trusts the proxy', async () => {
    const url = await serve({ rateLimitPerWindow: 1 });
    expect(
      (await fetch(`${url}/api/providers`, { headers: { 'x-forwarded-for': '203.0.113.1' } })).status,
    ).toBe(200);
    expect(
      (await fetch(`${url}/api/providers`, { headers: { 'x-forwarded-for': '203.0.113.2' } })).status,
    ).toBe(429);
  });

  it('uses the forwarded client address when the adapter trusts the proxy', async () => {
    const url = await serve({ rateLimitPerWindow: 1 }, true);
    expect(
      (await fetch(`${url}/api/providers`, { headers: { 'x-forwarded-for': '203.0.113.1' } })).status,
    ).toBe(200);
    expect(
      (await fetch(`${url}/api/providers`, { headers: { 'x-forwarded-for': '203.0.113.2' } })).status,
    ).toBe(200);
    expect(
      (await fetch(`${url}/api/providers`, { headers: { 'x-forwarded-for': '203.0.113.1' } })).status,
    ).toBe(429);
  });

  it('never limits /health', async () => {
    const url = await serve({ rateLimitPerWindow: 1 });
    await fetch(`${url}/api/providers`);
    for (let i = 0; i < 3; i++) expect((await fetch(`${url}/health`)).status).toBe(200);
  });

  it('goes through the injected rate limiter', async () => {
    const calls: string[] = [];
    const api = createRegistryApiWithHandle({
      providers,
      rateLimiter: {
        increment: async (key) => {
          calls.push(key);
          return 1000;
        },
        reset: async () => {},
      },
    });
    const result = await api({
      method: 'GET',
      path: '/api/providers',
      query: '',
      headers: {},
      body: '',
      ip: '192.0.2.9',
    });
    expect(result.status).toBe(429);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatch(/^registry:192\.0\.2\.9:\d+$/);
  });
});

describe('creation: providers and options are validated at start', () => {
  it('throws ERR_INVALID_PROVIDERS naming the bad entry', () => {
    expect(() =>
      createRegistryApiWithHandle({ providers: { git: { ...providers.git, recommended: 'http' } } }),
    ).toThrow(/provider "git" is invalid/);
  });

  it.each([
    ['rateLimitPerWindow', { rateLimitPerWindow: 0 }],
    ['rateLimitWindowSeconds', { rateLimitWindowSeconds: 1.5 }],
    ['cacheMaxAgeSeconds', { cacheMaxAgeSeconds: -1 }],
    ['corsOrigin', { corsOrigin: '' }],
    // Before, these failed on every request instead (a 500 for a header Node refuses, a TypeError from the
    // limiter or the clock), not at creation.
    ['corsOrigin', { corsOrigin: 'https://app.example\r\nx-injected: 1' }],
    ['rateLimiter', { rateLimiter: {} as RateLimiter }],
    ['clock', { clock: {} as Clock }],
  ])('throws ERR_INVALID_OPTIONS at creation for a bad %s', (name, options) => {
    let thrown: unknown;
    try {
      createRegistryApiWithHandle({ providers, ...options });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(RegistryError);
    expect(thrown).toMatchObject({ code: 'ERR_INVALID_OPTIONS' });
    expect((thrown as Error).message).toContain(name);
  });
});
