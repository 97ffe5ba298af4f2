import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toNodeListener } from '@keyhold/adapter-node';
import type { Area } from '@keyhold/core';
import { http, passthrough } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  ACME_TOKEN,
  ACME_ASK as ask,
  elicitationOf,
  makeHarness,
  mockTokenEndpoint,
  tokenResponse,
} from '../fixtures.js';

const mock = setupServer(http.all(/^http:\/\/127\.0\.0\.1:\d+\//, () => passthrough()));
beforeAll(() => mock.listen({ onUnhandledRequest: 'error' }));
afterEach(() => mock.resetHandlers());
afterAll(() => mock.close());

async function listen(area: Area): Promise<{ server: Server; base: string }> {
  const server = createServer(
    toNodeListener(area, {
      // The host's session: a cookie naming the user, enough to exercise the phishing rule over HTTP.
      userId: (request) => /(?:^|;\s*)session=([\w-]+)/.exec(request.headers.cookie ?? '')?.[1],
    }),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

describe('The browser leg through a real node:http server (adapter-node)', () => {
  it('connect redirects the signed-in asker to the provider; the callback stores the grant', async () => {
    let brokerRef: ReturnType<typeof makeHarness>['broker'] | undefined;
    // The broker needs the server's URL, so the area forwards to it once it exists.
    const { server, base } = await listen({
      ownsPath: (path) => brokerRef!.ownsPath(path),
      fetch: (request, info) => brokerRef!.fetch(request, info),
    });
    try {
      const harness = makeHarness({ baseUrl: base });
      brokerRef = harness.broker;
      const error = await elicitationOf(harness.broker.requestToken(ask, harness.context));
      expect(error.elicitationUrl.startsWith(`${base}/auth/oauth/connect?`)).toBe(true);

      const wrongUser = await fetch(error.elicitationUrl, {
        headers: { cookie: 'session=mallory' },
        redirect: 'manual',
      });
      expect(wrongUser.status).toBe(403);
      expect(await wrongUser.text()).toContain('another account');

      const connect = await fetch(error.elicitationUrl, {
        headers: { cookie: 'session=user-1' },
        redirect: 'manual',
      });
      expect(connect.status).toBe(302);
      const authorization = new URL(connect.headers.get('location')!);
      expect(authorization.searchParams.get('redirect_uri')).toBe(`${base}/auth/oauth/callback`);

      // The provider sends the browser back with a code and the state.
      const callbackUrl = new URL(authorization.searchParams.get('redirect_uri')!);
      callbackUrl.searchParams.set('code', 'code-1');
      callbackUrl.searchParams.set('state', authorization.searchParams.get('state')!);
      const log = mockTokenEndpoint(mock, ACME_TOKEN, () => tokenResponse({ access_token: 'acme-token' }));
      // A forwarded provider link finished in a browser that is not signed in is refused, storing nothing.
      const anonymous = await fetch(callbackUrl, { redirect: 'manual' });
      expect(anonymous.status).toBe(401);
      expect(log).toHaveLength(0);
      // The same signed-in browser comes back (a SameSite=Lax cookie rides the provider's top-level redirect).
      const callback = await fetch(callbackUrl, {
        redirect: 'manual',
        headers: { cookie: 'session=user-1' },
      });
      expect(callback.status).toBe(200);
      expect(callback.headers.get('content-type')).toContain('text/html');
      expect(callback.headers.get('cache-control')).toBe('no-store');
      expect(log[0]?.params.redirect_uri).toBe(`${base}/auth/oauth/callback`);
      expect(await harness.broker.requestToken(ask, harness.context)).toEqual({
        ok: true,
        accessToken: 'acme-token',
      });

      const replay = await fetch(callbackUrl, { redirect: 'manual', headers: { cookie: 'session=user-1' } });
      expect(replay.status).toBe(400);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
