import { afterEach, describe, expect, it } from 'vitest';
import { createRegistryClient } from '../src/client.js';
import { createRegistryApiWithHandle } from '../src/server/registry-api.js';
import { httpProvider, noteOf, stdioProvider } from './helpers/providers.js';
import { closedPort, type Running, serveHandler, serveRaw } from './helpers/serve.js';

const remote = {
  linear: httpProvider('linear', { name: 'Linear (remote)' }),
  onlyremote: stdioProvider('onlyremote'),
};
const local = { linear: httpProvider('linear', { name: 'Linear (local)' }) };

const running: Running[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((r) => r.close()));
});

async function start(server: Promise<Running>): Promise<string> {
  const r = await server;
  running.push(r);
  return r.url;
}

describe('client against a real registry server (node:http through adapter-node)', () => {
  it('reads providers, searches and checks health', async () => {
    const url = await start(serveHandler(createRegistryApiWithHandle({ providers: remote })));
    const client = createRegistryClient({ registryUrl: url, localProviders: local });
    expect(await client.health()).toEqual({ ok: true });
    expect(await client.getProvider('linear')).toEqual({
      ok: true,
      source: 'remote',
      provider: remote.linear,
    });
    expect(await client.listProviders()).toEqual({ source: 'remote', providers: remote });
    expect(await client.searchProviders('remote')).toMatchObject({ source: 'remote', count: 2 });
  });

  it('falls back after a real 404, then answers unknown when the local file lacks it too', async () => {
    const url = await start(
      serveHandler(createRegistryApiWithHandle({ providers: { onlyremote: remote.onlyremote } })),
    );
    const client = createRegistryClient({ registryUrl: url, localProviders: local });
    expect(await client.getProvider('linear')).toMatchObject({ source: 'local', reason: 'not_found' });
    expect(await client.getProvider('ghost')).toEqual({
      ok: false,
      reason: 'unknown',
      providerId: 'ghost',
      note: expect.stringMatching(/by hand/),
    });
  });
});

describe('fallback triggers on a real socket', () => {
  it('a refused connection', async () => {
    const port = await closedPort();
    const client = createRegistryClient({ registryUrl: `http://127.0.0.1:${port}`, localProviders: local });
    const found = await client.getProvider('linear');
    expect(found).toMatchObject({
      ok: true,
      source: 'local',
      reason: 'network',
      provider: local.linear,
    });
    expect(noteOf(found)).toContain('ECONNREFUSED');
  });

  it('a server that never answers: the connect timeout (until headers) fires', async () => {
    const url = await start(serveRaw(() => {}));
    const client = createRegistryClient({
      registryUrl: url,
      localProviders: local,
      connectTimeoutMs: 100,
      readTimeoutMs: 10_000,
    });
    const found = await client.getProvider('linear');
    expect(found).toMatchObject({ source: 'local', reason: 'timeout' });
    expect(noteOf(found)).toContain('no response within 100 ms');
  });

  it('a server that sends headers then stalls the body: the read timeout fires', async () => {
    const url = await start(
      serveRaw((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"id": "lin');
      }),
    );
    const client = createRegistryClient({
      registryUrl: url,
      localProviders: local,
      connectTimeoutMs: 10_000,
      readTimeoutMs: 100,
    });
    const found = await client.getProvider('linear');
    expect(found).toMatchObject({ source: 'local', reason: 'timeout' });
    expect(noteOf(found)).toContain('body not read within 100 ms');
  });

  it('health reports a refused connection instead of falling back', async () => {
    const port = await closedPort();
    const client = createRegistryClient({ registryUrl: `http://127.0.0.1:${port}`, localProviders: local });
    expect(await client.health()).toMatchObject({ ok: false, reason: 'network' });
  });
});
