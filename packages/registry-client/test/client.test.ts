import type { Logger } from '@keyhold/core';
import { HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import manifest from '../package.json' with { type: 'json' };
import { createRegistryClient } from '../src/client.js';
import { RegistryError } from '../src/errors.js';
import { httpProvider, noteOf, stdioProvider } from './helpers/providers.js';

const REGISTRY = 'https://registry.test';
const remote = {
  linear: httpProvider('linear', { name: 'Linear (remote)' }),
  onlyremote: stdioProvider('onlyremote'),
};
const local = {
  linear: httpProvider('linear', { name: 'Linear (local)' }),
  onlylocal: stdioProvider('onlylocal', { description: 'Only in the local file.' }),
};

const server = setupServer();
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

function client(options: Parameters<typeof createRegistryClient>[0] = {}) {
  return createRegistryClient({ registryUrl: REGISTRY, localProviders: local, ...options });
}

function recordingLogger(): Logger & { lines: { fields: Record<string, unknown>; message?: string }[] } {
  const lines: { fields: Record<string, unknown>; message?: string }[] = [];
  const log = (fields: Record<string, unknown>, message?: string) => {
    lines.push({ fields, ...(message !== undefined ? { message } : {}) });
  };
  return { lines, debug: log, info: log, warn: log, error: log };
}

describe('request headers (SPEC area E)', () => {
  it('sends User-Agent keyhold-cli/<version> and Accept: application/json', async () => {
    let seen: Headers | undefined;
    server.use(
      http.get(`${REGISTRY}/api/providers/linear`, ({ request }) => {
        seen = request.headers;
        return HttpResponse.json(remote.linear);
      }),
    );
    await client().getProvider('linear');
    expect(seen?.get('user-agent')).toBe(`keyhold-cli/${manifest.version}`);
    expect(seen?.get('accept')).toBe('application/json');
  });

  it('keeps a path prefix of the registry URL', async () => {
    server.use(http.get(`${REGISTRY}/v2/api/providers/linear`, () => HttpResponse.json(remote.linear)));
    const found = await client({ registryUrl: `${REGISTRY}/v2` }).getProvider('linear');
    expect(found).toMatchObject({ ok: true, source: 'remote' });
  });
});

describe('getProvider: remote first (rule 2)', () => {
  it('answers the remote provider', async () => {
    server.use(http.get(`${REGISTRY}/api/providers/linear`, () => HttpResponse.json(remote.linear)));
    expect(await client().getProvider('linear')).toEqual({
      ok: true,
      source: 'remote',
      provider: remote.linear,
    });
  });

  it('falls back to the local file when the registry answers 404 (rule 4)', async () => {
    server.use(
      http.get(`${REGISTRY}/api/providers/onlylocal`, () =>
        HttpResponse.json({ error: 'provider_not_found', providerId: 'onlylocal' }, { status: 404 }),
      ),
    );
    const found = await client().getProvider('onlylocal');
    expect(found).toMatchObject({
      ok: true,
      source: 'local',
      reason: 'not_found',
      provider: local.onlylocal,
    });
    expect(noteOf(found)).toContain('local registry');
  });

  it('answers unknown when the provider is unknown remotely and locally (rule 4)', async () => {
    server.use(http.get(`${REGISTRY}/api/providers/nowhere`, () => HttpResponse.json({}, { status: 404 })));
    const found = await client().getProvider('nowhere');
    expect(found).toMatchObject({ ok: false, reason: 'unknown', providerId: 'nowhere' });
    expect(noteOf(found)).toMatch(/by hand/);
  });
});

describe('getProvider: an empty id', () => {
  it('answers unknown without asking the registry', async () => {
    let requests = 0;
    server.use(
      http.get(`${REGISTRY}/*`, () => {
        requests += 1;
        return HttpResponse.json(remote);
      }),
    );
    expect(await client().getProvider('  ')).toMatchObject({
      ok: false,
      reason: 'unknown',
      providerId: '  ',
    });
    expect(requests).toBe(0);
  });
});

describe('fallback to the local file (rule 3)', () => {
  it('on invalid JSON', async () => {
    server.use(http.get(`${REGISTRY}/api/providers/linear`, () => HttpResponse.text('<html>oops</html>')));
    const found = await client().getProvider('linear');
    expect(found).toMatchObject({
      ok: true,
      source: 'local',
      reason: 'invalid_json',
      provider: local.linear,
    });
    expect(noteOf(found)).toMatch(/local registry/);
  });

  it('on a body of the wrong shape', async () => {
    server.use(
      http.get(`${REGISTRY}/api/providers/linear`, () => HttpResponse.json({ id: 'linear', nope: true })),
    );
    expect(await client().getProvider('linear')).toMatchObject({
      source: 'local',
      reason: 'unexpected_format',
    });
  });

  it('on a list of the wrong shape', async () => {
    server.use(http.get(`${REGISTRY}/api/providers`, () => HttpResponse.json([remote.linear])));
    const listing = await client().listProviders();
    expect(listing).toMatchObject({ source: 'local', reason: 'unexpected_format' });
    expect(listing.providers).toEqual(local);
  });

  it('on a server error status', async () => {
    server.use(
      http.get(`${REGISTRY}/api/providers`, () => HttpResponse.json({ error: 'boom' }, { status: 503 })),
    );
    expect(await client().listProviders()).toMatchObject({ source: 'local', reason: 'http_error' });
  });

  it('on a network error', async () => {
    server.use(http.get(`${REGISTRY}/api/providers`, () => HttpResponse.error()));
    expect(await client().listProviders()).toMatchObject({ source: 'local', reason: 'network' });
  });

  it('when no registry URL is configured, without any request', async () => {
    const listing = await createRegistryClient({ localProviders: local }).listProviders();
    expect(listing).toMatchObject({ source: 'local', reason: 'not_configured' });
  });

  it('logs the reason only in debug mode', async () => {
    server.use(http.get(`${REGISTRY}/api/providers`, () => HttpResponse.text('not json')));
    const quiet = recordingLogger();
    await client({ logger: quiet }).listProviders();
    expect(quiet.lines).toEqual([]);
    const loud = recordingLogger();
    await client({ logger: loud, debug: true }).listProviders();
    expect(loud.lines).toHaveLength(1);
    expect(loud.lines[0]?.fields).toMatchObject({ reason: 'invalid_json', path: '/api/providers' });
  });
});

describe('listProviders: both list shapes (SPEC area E)', () => {
  it('reads the plain map', async () => {
    server.use(http.get(`${REGISTRY}/api/providers`, () => HttpResponse.json(remote)));
    expect(await client().listProviders()).toEqual({ source: 'remote', providers: remote });
  });

  it('reads the { providers } wrapper', async () => {
    server.use(http.get(`${REGISTRY}/api/providers`, () => HttpResponse.json({ providers: remote })));
    expect(await client().listProviders()).toEqual({ source: 'remote', providers: remote });
  });

  it('reads a map that holds a provider whose id is "providers"', async () => {
    const map = { providers: stdioProvider('providers') };
    server.use(http.get(`${REGISTRY}/api/providers`, () => HttpResponse.json(map)));
    expect(await client().listProviders()).toEqual({ source: 'remote', providers: map });
  });

  it('skips a malformed entry and keeps the others', async () => {
    server.use(
      http.get(`${REGISTRY}/api/providers`, () => HttpResponse.json({ ...remote, broken: { id: 'broken' } })),
    );
    expect(await client().listProviders()).toEqual({ source: 'remote', providers: remote });
  });
});

describe('searchProviders', () => {
  it('uses the search endpoint', async () => {
    let q: string | null = null;
    server.use(
      http.get(`${REGISTRY}/api/providers/search`, ({ request }) => {
        q = new URL(request.url).searchParams.get('q');
        return HttpResponse.json({ results: [remote.onlyremote], query: 'only remote', count: 1 });
      }),
    );
    expect(await client().searchProviders('only remote')).toEqual({
      source: 'remote',
      results: [remote.onlyremote],
      query: 'only remote',
      count: 1,
    });
    expect(q).toBe('only remote');
  });

  it('searches the remote list when the optional search endpoint is missing', async () => {
    server.use(
      http.get(`${REGISTRY}/api/providers/search`, () => HttpResponse.json({}, { status: 404 })),
      http.get(`${REGISTRY}/api/providers`, () => HttpResponse.json(remote)),
    );
    const search = await client().searchProviders('onlyremote');
    expect(search).toMatchObject({ source: 'remote', count: 1 });
    expect(search.results.map((p) => p.id)).toEqual(['onlyremote']);
  });

  it('searches the local file when the registry fails', async () => {
    server.use(http.get(`${REGISTRY}/api/providers/search`, () => HttpResponse.json({ results: 'nope' })));
    const search = await client().searchProviders('local file');
    expect(search).toMatchObject({ source: 'local', reason: 'unexpected_format', count: 1 });
    expect(search.results).toEqual([local.onlylocal]);
  });
});

describe('cache: one in-memory cache per client instance (rule 5)', () => {
  it('asks the registry once per provider per run', async () => {
    let requests = 0;
    server.use(
      http.get(`${REGISTRY}/api/providers/linear`, () => {
        requests += 1;
        return HttpResponse.json(remote.linear);
      }),
    );
    const registry = client();
    await registry.getProvider('linear');
    await registry.getProvider('LINEAR');
    expect(requests).toBe(1);
    await client().getProvider('linear');
    expect(requests).toBe(2);
  });

  it('answers lookups and searches from a list it already fetched', async () => {
    let requests = 0;
    server.use(
      http.get(`${REGISTRY}/api/providers`, () => {
        requests += 1;
        return HttpResponse.json(remote);
      }),
    );
    const registry = client();
    await registry.listProviders();
    expect(await registry.getProvider('onlyremote')).toMatchObject({ source: 'remote' });
    expect(await registry.searchProviders('linear')).toMatchObject({ source: 'remote', count: 1 });
    await registry.listProviders();
    expect(requests).toBe(1);
  });

  it('remembers a remote 404 for the run', async () => {
    let requests = 0;
    server.use(
      http.get(`${REGISTRY}/api/providers/onlylocal`, () => {
        requests += 1;
        return HttpResponse.json({}, { status: 404 });
      }),
    );
    const registry = client();
    await registry.getProvider('onlylocal');
    await registry.getProvider('onlylocal');
    expect(requests).toBe(1);
  });

  it('stops asking a registry that is down for the rest of the run', async () => {
    let requests = 0;
    server.use(
      http.get(`${REGISTRY}/*`, () => {
        requests += 1;
        return HttpResponse.error();
      }),
    );
    const registry = client();
    await registry.getProvider('linear');
    expect(await registry.listProviders()).toMatchObject({ source: 'local', reason: 'network' });
    expect(await registry.searchProviders('x')).toMatchObject({ source: 'local', reason: 'network' });
    expect(requests).toBe(1);
  });
});

describe('health', () => {
  it('is ok when /health answers { status: "ok" }', async () => {
    server.use(http.get(`${REGISTRY}/health`, () => HttpResponse.json({ status: 'ok' })));
    expect(await client().health()).toEqual({ ok: true });
  });

  it('reports the reason otherwise', async () => {
    server.use(http.get(`${REGISTRY}/health`, () => HttpResponse.json({ status: 'degraded' })));
    expect(await client().health()).toMatchObject({ ok: false, reason: 'unexpected_format' });
  });
});

describe('createRegistryClient checks its options once, at creation (RegistryError ERR_INVALID_OPTIONS)', () => {
  it.each([
    ['registryUrl', { registryUrl: 'not a url' }],
    ['registryUrl', { registryUrl: 'ftp://registry.test' }],
    ['connectTimeoutMs', { connectTimeoutMs: 0 }],
    ['connectTimeoutMs', { connectTimeoutMs: 1.5 }],
    ['readTimeoutMs', { readTimeoutMs: -1 }],
    // Before, these failed on every request instead: a fetch that is no function, and a User-Agent no
    // header can carry, both turned into a silent fallback to the local file.
    ['fetch', { fetch: 'fetch' as unknown as typeof fetch }],
    ['userAgent', { userAgent: 'keyhold\r\nx-injected: 1' }],
    ['userAgent', { userAgent: '' }],
  ])('a bad %s throws at creation', (name, options) => {
    let thrown: unknown;
    try {
      createRegistryClient(options);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(RegistryError);
    expect(thrown).toMatchObject({ code: 'ERR_INVALID_OPTIONS' });
    expect((thrown as Error).message).toContain(name);
  });

  it.each(['http://registry.example.com', 'http://10.0.0.5:8080', 'http://0.0.0.0:8787'])(
    'a plain http registryUrl beyond loopback (%s) throws at creation: HTTPS only',
    (registryUrl) => {
      expect(() => createRegistryClient({ registryUrl })).toThrow(
        expect.objectContaining({
          code: 'ERR_INVALID_OPTIONS',
          message: expect.stringMatching(/registryUrl.*https/),
        }),
      );
    },
  );

  it.each(['http://127.0.0.1:8787', 'http://localhost:8787/', 'http://[::1]:8787'])(
    'a plain http registryUrl on loopback (%s) is accepted',
    (registryUrl) => {
      expect(() => createRegistryClient({ registryUrl })).not.toThrow();
    },
  );

  it('a registryUrl fragment is dropped, not refused: it never reaches the server', async () => {
    server.use(http.get(`${REGISTRY}/health`, () => HttpResponse.json({ status: 'ok' })));
    expect(await client({ registryUrl: `${REGISTRY}/#section` }).health()).toEqual({ ok: true });
  });

  it('a provider built in JavaScript with a property set to undefined is taken as omitting it', async () => {
    const built = { ...httpProvider('built'), stdio: undefined };
    expect(await client({ localProviders: { built } }).getProvider('built')).toMatchObject({ ok: true });
  });

  it('an invalid local providers map throws ERR_INVALID_PROVIDERS at creation', () => {
    expect(() => createRegistryClient({ localProviders: { x: { id: 'x' } } })).toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_PROVIDERS' }),
    );
  });
});
