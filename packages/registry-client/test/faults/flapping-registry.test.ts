import { delay, HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createRegistryClient } from '../../src/client.js';
import { httpProvider, stdioProvider } from '../helpers/providers.js';

const REGISTRY = 'https://registry.test';
const remote = {
  linear: httpProvider('linear', { name: 'Linear (remote)' }),
  onlyremote: stdioProvider('onlyremote'),
};
const local = {
  linear: httpProvider('linear', { name: 'Linear (local)' }),
  onlylocal: stdioProvider('onlylocal'),
};

/** One registry state per request, in order: up, or one of the ways a registry goes down. */
type State = 'up' | 'http500' | 'http429' | 'timeout' | 'reset' | 'garbage' | 'wrong-shape';
const FAILURE_REASON: Record<Exclude<State, 'up'>, string> = {
  http500: 'http_error',
  http429: 'http_error',
  timeout: 'timeout',
  reset: 'network',
  garbage: 'invalid_json',
  'wrong-shape': 'unexpected_format',
};

let script: State[] = [];
let served = 0;
async function answer(up: () => Response): Promise<Response> {
  const state = script[served++ % script.length] ?? 'up';
  switch (state) {
    case 'up':
      return up();
    case 'http500':
      return new HttpResponse('down', { status: 500 });
    case 'http429':
      return new HttpResponse('slow down', { status: 429, headers: { 'retry-after': '1' } });
    case 'timeout':
      await delay(500);
      return up();
    case 'reset':
      return HttpResponse.error();
    case 'garbage':
      return new HttpResponse('<html>proxy error', {
        status: 200,
        headers: { 'content-type': 'application/json' },
      });
    case 'wrong-shape':
      return HttpResponse.json({ providers: 'not a map' });
  }
}

const server = setupServer(
  http.get(`${REGISTRY}/health`, () => answer(() => HttpResponse.json({ status: 'ok' }))),
  http.get(`${REGISTRY}/api/providers`, () => answer(() => HttpResponse.json(remote))),
  http.get(`${REGISTRY}/api/providers/:id`, ({ params }) =>
    answer(() => {
      const provider = remote[String(params.id) as keyof typeof remote];
      return provider
        ? HttpResponse.json(provider)
        : HttpResponse.json({ error: 'provider_not_found' }, { status: 404 });
    }),
  ),
);
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => {
  served = 0;
});
afterAll(() => server.close());

function client() {
  return createRegistryClient({
    registryUrl: REGISTRY,
    localProviders: local,
    connectTimeoutMs: 100,
    readTimeoutMs: 100,
  });
}

describe('fault: a flapping registry — each run falls back to the local file while it is down and recovers when it is back', () => {
  it('alternating up/down over every failure kind: a run started while up reads remote, one started while down reads local with the reason', async () => {
    script = [
      'up',
      'http500',
      'up',
      'timeout',
      'up',
      'reset',
      'up',
      'garbage',
      'up',
      'wrong-shape',
      'up',
      'http429',
      'up',
    ];
    for (const [index, state] of script.entries()) {
      // One client is one CLI run (the client caches for its own lifetime): a new run sees the registry anew.
      const listing = await client().listProviders();
      if (state === 'up') {
        expect(listing.source, `run ${index}`).toBe('remote');
        expect(Object.keys(listing.providers).sort()).toEqual(['linear', 'onlyremote']);
      } else {
        expect(listing.source, `run ${index} (${state})`).toBe('local');
        if (listing.source === 'local') {
          expect(listing.reason).toBe(FAILURE_REASON[state]);
          expect(listing.note.length).toBeGreaterThan(0);
        }
        expect(Object.keys(listing.providers).sort()).toEqual(['linear', 'onlylocal']);
      }
    }
    expect(served).toBe(script.length);
  });

  it('within one run, the first outage is remembered: the run waits for a dead registry once and stays on the local file', async () => {
    script = ['timeout', 'up', 'up'];
    const registry = client();
    const first = await registry.getProvider('linear');
    expect(first.ok && first.source).toBe('local');
    const second = await registry.getProvider('linear');
    expect(second.ok && second.source).toBe('local');
    expect((await registry.listProviders()).source).toBe('local');
    expect(served).toBe(1);
    // The next run finds the registry back.
    const next = await client().getProvider('linear');
    expect(next.ok && next.source).toBe('remote');
    if (next.ok) expect(next.provider.name).toBe('Linear (remote)');
  });

  it('a provider only the registry knows is reported as unknown while it is down, and found once it is back', async () => {
    script = ['http500', 'up'];
    expect(await client().getProvider('onlyremote')).toMatchObject({ ok: false, reason: 'unknown' });
    const back = await client().getProvider('onlyremote');
    expect(back.ok && back.source).toBe('remote');
  });

  it('no call throws whatever the registry does', async () => {
    script = ['reset', 'garbage', 'http500', 'timeout', 'wrong-shape', 'http429'];
    for (let i = 0; i < script.length; i++) {
      const registry = client();
      await expect(registry.getProvider('linear')).resolves.toBeDefined();
    }
    for (let i = 0; i < script.length; i++) {
      await expect(client().searchProviders('lin')).resolves.toBeDefined();
      await expect(client().health()).resolves.toBeDefined();
    }
  });
});
