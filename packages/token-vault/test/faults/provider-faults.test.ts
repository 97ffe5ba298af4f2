import { delay, HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import { TokenVaultError } from '../../src/index.js';
import {
  ACME_TOKEN,
  ACME_ASK as ask,
  authorizeInBrowser,
  connectGrant,
  getRequest,
  loginInBrowser,
  makeHarness,
  mockTokenEndpoint,
  tokenResponse,
} from '../fixtures.js';
import { useProviderServer } from '../provider-server.js';

const server = useProviderServer();

const TIMEOUT_MS = 100;

/** The provider misbehaving in each way the broker must survive. */
const FAULTS: readonly [string, () => Promise<Response> | Response][] = [
  [
    'times out',
    async () => {
      await delay(TIMEOUT_MS * 5);
      return HttpResponse.json({ access_token: 'too-late' });
    },
  ],
  ['answers 500', () => new HttpResponse('upstream down', { status: 500 })],
  [
    'answers 503 with an OAuth-looking body',
    () => HttpResponse.json({ error: 'temporarily_unavailable' }, { status: 503 }),
  ],
  [
    'answers garbage with 200',
    () => new HttpResponse('<html>gateway', { status: 200, headers: { 'content-type': 'application/json' } }),
  ],
  ['answers JSON without an access_token', () => HttpResponse.json({ token_type: 'bearer' })],
  ['drops the connection', () => HttpResponse.error()],
];

function harness() {
  return makeHarness({ tokenRequestTimeoutMs: TIMEOUT_MS, refreshBufferSeconds: 60 });
}

describe('fault: a provider failing a refresh leaves the stored grant untouched and the ask reports it', () => {
  it.each(FAULTS)(
    'the provider %s: ERR_PROVIDER_UNAVAILABLE, grant byte-for-byte unchanged, recovers after',
    async (_, fault) => {
      const h = harness();
      await connectGrant(server, h);
      const before = await h.storage.grants.list({ tenantId: 'tenant-a' });
      h.clock.advance(3600_000 + 1);
      server.use(http.post(ACME_TOKEN, fault));
      const failure = await h.broker.requestToken(ask, h.context).catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(TokenVaultError);
      expect((failure as TokenVaultError).code).toBe('ERR_PROVIDER_UNAVAILABLE');
      expect(await h.storage.grants.list({ tenantId: 'tenant-a' })).toEqual(before);

      server.resetHandlers();
      mockTokenEndpoint(server, ACME_TOKEN, () =>
        tokenResponse({ access_token: 'access-2', expires_in: 3600 }),
      );
      expect(await h.broker.requestToken(ask, h.context)).toEqual({ ok: true, accessToken: 'access-2' });
    },
  );

  it.each(FAULTS)(
    'the provider %s inside the refresh buffer: the still-valid token is handed out, grant unchanged',
    async (_, fault) => {
      const h = harness();
      await connectGrant(server, h);
      const before = await h.storage.grants.list({ tenantId: 'tenant-a' });
      h.clock.advance(3600_000 - 30_000);
      server.use(http.post(ACME_TOKEN, fault));
      expect(await h.broker.requestToken(ask, h.context)).toEqual({ ok: true, accessToken: 'access-1' });
      expect(await h.storage.grants.list({ tenantId: 'tenant-a' })).toEqual(before);
    },
  );
});

describe('fault: a provider failing the callback code exchange stores nothing; the link still works', () => {
  it.each(FAULTS)(
    'the provider %s: 502 page, no grant, the same elicitation link succeeds later',
    async (_, fault) => {
      const h = harness();
      const { error, callback } = await loginInBrowser(h);
      server.use(http.post(ACME_TOKEN, fault));
      const page = await h.broker.callback(callback);
      expect(page.status).toBe(502);
      expect(page.body).toContain('could not be reached');
      expect(await h.storage.grants.list({ tenantId: 'tenant-a' })).toEqual([]);

      server.resetHandlers();
      mockTokenEndpoint(server, ACME_TOKEN, () =>
        tokenResponse({ access_token: 'access-3', expires_in: 3600 }),
      );
      expect((await h.broker.connect(getRequest(error.elicitationUrl, 'user-1'))).status).toBe(302);
      const second = await authorizeInBrowser(h.broker, error.elicitationUrl);
      expect((await h.broker.callback(second.callback)).status).toBe(200);
      expect(await h.broker.requestToken(ask, h.context)).toEqual({ ok: true, accessToken: 'access-3' });
    },
  );
});

describe('fault: the grant store failing during the callback leaves no grant and keeps the link', () => {
  it('grants.put throwing rejects the callback (the host answers 500) and stores nothing', async () => {
    const h = harness();
    const put = h.storage.grants.put.bind(h.storage.grants);
    let failing = true;
    h.storage.grants.put = async (grant) => {
      if (failing) throw new Error('injected grant store outage');
      return put(grant);
    };
    const { error, callback } = await loginInBrowser(h);
    mockTokenEndpoint(server, ACME_TOKEN, () =>
      tokenResponse({ access_token: 'access-4', expires_in: 3600 }),
    );
    await expect(h.broker.callback(callback)).rejects.toThrow('injected grant store outage');
    expect(await h.storage.grants.list({ tenantId: 'tenant-a' })).toEqual([]);
    failing = false;
    const again = await authorizeInBrowser(h.broker, error.elicitationUrl);
    expect((await h.broker.callback(again.callback)).status).toBe(200);
  });
});
