import { StorageUnavailableError } from '@keyhold/core';
import { describe, expect, it } from 'vitest';
import { createRegistryApi } from '../../src/server.js';
import { httpProvider } from '../helpers/providers.js';

const providers = { github: httpProvider('github', { name: 'GitHub' }) };
const origin = 'https://registry.example';

describe('createRegistryApi(...).fetch: the same API as a web-standard handler', () => {
  it('answers GET /api/providers/<id> with the McpProvider, its ETag and CORS headers', async () => {
    const api = createRegistryApi({ providers });
    const response = await api.fetch(new Request(`${origin}/api/providers/github`), { ip: '203.0.113.7' });
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('etag')).toMatch(/^".+"$/);
    expect(await response.json()).toEqual(providers.github);
  });

  it('answers 304 with no body to a matching If-None-Match (RFC 9110 §13.1.2)', async () => {
    const api = createRegistryApi({ providers });
    const first = await api.fetch(new Request(`${origin}/api/providers`));
    const etag = first.headers.get('etag')!;
    const again = await api.fetch(
      new Request(`${origin}/api/providers`, { headers: { 'if-none-match': etag } }),
    );
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
  });

  it('searches with ?q=', async () => {
    const api = createRegistryApi({ providers });
    const response = await api.fetch(new Request(`${origin}/api/providers/search?q=git`));
    const body = (await response.json()) as { count: number; query: string };
    expect(body).toMatchObject({ query: 'git', count: 1 });
  });

  it('answers /health, a CORS preflight with 204, and 404 for paths it does not own', async () => {
    const api = createRegistryApi({ providers });
    expect(await (await api.fetch(new Request(`${origin}/health`))).json()).toEqual({ status: 'ok' });
    const preflight = await api.fetch(new Request(`${origin}/api/providers`, { method: 'OPTIONS' }));
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-methods')).toBe('GET, HEAD, OPTIONS');
    expect((await api.fetch(new Request(`${origin}/tenant/demo/token`))).status).toBe(404);
  });

  it('keys the rate limit by info.ip, so one address is limited and another is not', async () => {
    const api = createRegistryApi({ providers, rateLimitPerWindow: 1 });
    const get = (ip: string) => api.fetch(new Request(`${origin}/api/providers`), { ip });
    expect((await get('203.0.113.1')).status).toBe(200);
    const limited = await get('203.0.113.1');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).not.toBeNull();
    expect((await get('203.0.113.2')).status).toBe(200);
  });

  it('answers 405 to a POST and 413 to a POST whose body is larger than 64 KiB', async () => {
    const api = createRegistryApi({ providers });
    const small = await api.fetch(new Request(`${origin}/api/providers`, { method: 'POST', body: '{}' }));
    expect(small.status).toBe(405);
    expect(small.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    const big = await api.fetch(
      new Request(`${origin}/api/providers`, { method: 'POST', body: 'x'.repeat(64 * 1024 + 1) }),
    );
    expect(big.status).toBe(413);
  });
});

describe('createRegistryApi: an outage of the rate-limit store answers 503 with Retry-After', () => {
  it('a limiter throwing StorageUnavailableError: 503 temporarily_unavailable, CORS kept, /health unaffected', async () => {
    const warnings: Record<string, unknown>[] = [];
    const ignore = () => {};
    const api = createRegistryApi({
      providers,
      logger: { debug: ignore, info: ignore, warn: (fields) => warnings.push(fields), error: ignore },
      rateLimiter: {
        increment: async () => {
          throw new StorageUnavailableError('redis:limiter', { retryAfterSeconds: 6 });
        },
        reset: async () => {},
      },
    });
    const response = await api.fetch(new Request(`${origin}/api/providers/github`), { ip: '203.0.113.7' });
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('6');
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(await response.json()).toMatchObject({ error: 'temporarily_unavailable' });
    expect(warnings).toEqual([
      expect.objectContaining({ event: 'storage_unavailable', component: 'redis:limiter' }),
    ]);
    expect((await api.fetch(new Request(`${origin}/health`))).status).toBe(200);
  });
});

describe('createRegistryApi: a plain area object, ownsPath exactly the paths fetch serves', () => {
  it('is not callable and has fetch and ownsPath only', () => {
    const api = createRegistryApi({ providers });
    expect([typeof api, Object.keys(api).sort()]).toEqual(['object', ['fetch', 'ownsPath']]);
  });

  it('owns /health, /api/providers and everything under it (one trailing slash allowed), and nothing else', async () => {
    const api = createRegistryApi({ providers, rateLimitPerWindow: 1000 });
    const owned = [
      '/health',
      '/health/',
      '/api/providers',
      '/api/providers/',
      '/api/providers/github',
      '/api/providers/nope',
      '/api/providers/search',
    ];
    const others = [
      '/',
      '/api',
      '/api/provider',
      '/healthz',
      '/api/providersx',
      '/health//',
      '/x/api/providers',
    ];
    for (const path of [...owned, ...others]) {
      const response = await api.fetch(new Request(`${origin}${path}`, { method: 'DELETE' }), {
        ip: '203.0.113.9',
      });
      expect([path, api.ownsPath(path), response.status]).toEqual([
        path,
        owned.includes(path),
        owned.includes(path) ? 405 : 404,
      ]);
    }
  });
});
