import { describe, expect, it } from 'vitest';
import { createLocalVault, createMemoryBrokerStorage, createTokenBroker } from '../src/index.js';
import {
  ACME_TOKEN,
  ACME_ASK as ask,
  elicitationOf,
  makeHarness,
  mockTokenEndpoint,
  tokenResponse,
} from './fixtures.js';
import { useProviderServer } from './provider-server.js';

const server = useProviderServer();

describe('broker.fetch: the connect and callback steps as one web-standard handler', () => {
  it('runs connect → provider → callback through fetch, and the next ask gets the token', async () => {
    const harness = makeHarness();
    mockTokenEndpoint(server, ACME_TOKEN, () =>
      tokenResponse({ access_token: 'acme-token', token_type: 'bearer', expires_in: 3600, scope: 'read' }),
    );
    const elicitation = await elicitationOf(harness.broker.requestToken(ask, harness.context));
    const connect = await harness.broker.fetch(new Request(elicitation.elicitationUrl), { userId: 'user-1' });
    expect(connect.status).toBe(302);
    const authorization = new URL(connect.headers.get('location')!);
    const callback = new URL(authorization.searchParams.get('redirect_uri')!);
    callback.searchParams.set('code', 'code-1');
    callback.searchParams.set('state', authorization.searchParams.get('state')!);
    const done = await harness.broker.fetch(new Request(callback), { userId: 'user-1' });
    expect(done.status).toBe(200);
    expect(await harness.broker.requestToken(ask, harness.context)).toEqual({
      ok: true,
      accessToken: 'acme-token',
    });
  });

  it('traces the connect and callback steps when given tracing', async () => {
    const spans: [string, number][] = [];
    const harness = makeHarness({
      tracing: { start: (name) => (outcome) => spans.push([name, outcome.status]) },
    });
    const elicitation = await elicitationOf(harness.broker.requestToken(ask, harness.context));
    await harness.broker.fetch(new Request(elicitation.elicitationUrl), { userId: 'user-1' });
    await harness.broker.fetch(new Request('https://host.example/auth/oauth/callback?state=forged&code=x'));
    expect(spans).toEqual([
      ['connect', 302],
      ['callback', 400],
    ]);
  });

  it('answers 405 with Allow for another method on its paths, and 404 for any other path', async () => {
    const harness = makeHarness();
    const post = await harness.broker.fetch(
      new Request('https://host.example/auth/oauth/callback', { method: 'POST', body: 'x' }),
    );
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET');
    expect((await harness.broker.fetch(new Request('https://host.example/elsewhere'))).status).toBe(404);
  });

  it('refuses the connect step without the signed-in user who asked', async () => {
    const harness = makeHarness();
    const elicitation = await elicitationOf(harness.broker.requestToken(ask, harness.context));
    const anonymous = await harness.broker.fetch(new Request(elicitation.elicitationUrl));
    expect(anonymous.status).not.toBe(302);
    expect(anonymous.status).toBeGreaterThanOrEqual(400);
  });
});

describe('broker.ownsPath: exactly the paths broker.fetch serves', () => {
  it('owns the connect and callback paths (default and configured) and nothing else', async () => {
    for (const options of [
      {},
      { connectUrl: 'https://host.example/oauth/go', callbackUrl: 'https://host.example/oauth/back' },
    ]) {
      const { broker } = makeHarness(options);
      const paths = [
        '/auth/oauth/connect',
        '/auth/oauth/callback',
        '/oauth/go',
        '/oauth/back',
        '/auth/oauth/connect/',
        '/auth/oauth',
        '/elsewhere',
        '/',
      ];
      for (const path of paths) {
        const response = await broker.fetch(new Request(`https://host.example${path}`, { method: 'DELETE' }));
        expect([path, broker.ownsPath(path)]).toEqual([path, response.status !== 404]);
      }
    }
  });
});

describe('broker.fetch: the user is resolved only by a browser step', () => {
  it('calls a userId function once for connect, and never for a path or method it does not serve', async () => {
    const harness = makeHarness();
    let calls = 0;
    const userId = () => {
      calls += 1;
      return 'user-1';
    };
    await harness.broker.fetch(new Request('https://host.example/elsewhere'), { userId });
    await harness.broker.fetch(new Request('https://host.example/auth/oauth/connect', { method: 'POST' }), {
      userId,
    });
    expect(calls).toBe(0);
    const elicitation = await elicitationOf(harness.broker.requestToken(ask, harness.context));
    expect((await harness.broker.fetch(new Request(elicitation.elicitationUrl), { userId })).status).toBe(
      302,
    );
    expect(calls).toBe(1);
  });
});

describe('createTokenBroker: fetch and ownsPath are the one way in', () => {
  it('has no connect or callback members', () => {
    const broker = createTokenBroker({
      baseUrl: 'https://host.example',
      vault: createLocalVault({ masterKey: 'a-master-key-of-at-least-32-bytes-long', scryptCost: 1024 }),
      storage: createMemoryBrokerStorage(),
      providers: [],
    });
    expect(['connect' in broker, 'callback' in broker, typeof broker.ownsPath]).toEqual([
      false,
      false,
      'function',
    ]);
  });
});
