import { HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import type { BrokerEvent } from '../src/events.js';
import { BROKER_EVENT_REASONS } from '../src/events.js';
import { createTokenBroker } from '../src/index.js';
import {
  ACME_TOKEN,
  ACME_ASK as ask,
  elicitationOf,
  getRequest,
  loginInBrowser,
  makeHarness,
  mockTokenEndpoint,
  T0,
  tokenResponse,
} from './fixtures.js';
import { useProviderServer } from './provider-server.js';

const server = useProviderServer();

const MINUTE = 60_000;
const SECRETS = ['access-1', 'refresh-1', 'access-2', 'refresh-2', 'code-1', 'acme-secret'];

/** A harness whose broker records every event; the ask names the MCP client `app-1`. */
function recording() {
  const events: BrokerEvent[] = [];
  const harness = makeHarness({ events: { onEvent: (event) => void events.push(event) } });
  return { harness, events, context: { ...harness.context, clientId: 'app-1' } };
}

const asker = {
  tenant: 'tenant-a',
  category: 'broker',
  userId: 'user-1',
  provider: 'acme',
  toolModuleId: 'module-1',
};

/** Neither the provider's code, the state nor any token reaches an event. */
function expectNoSecrets(events: readonly BrokerEvent[], extra: readonly string[] = []): void {
  const text = JSON.stringify(events);
  for (const secret of [...SECRETS, ...extra]) expect(text).not.toContain(secret);
}

async function loggedIn() {
  const recorded = recording();
  const browser = await loginInBrowser(recorded.harness, ask, recorded.context);
  return { ...recorded, ...browser };
}

describe('a login link given to a tool call emits broker.login_started', () => {
  it('names the tenant, user, client, provider and tool module, with status 401 and the broker clock', async () => {
    const { harness, events, context } = recording();
    await elicitationOf(harness.broker.requestToken(ask, context));
    expect(events).toEqual([
      { ...asker, at: T0, reason: 'broker.login_started', status: 401, clientId: 'app-1' },
    ]);
  });

  it('leaves clientId out when the ask does not name a client', async () => {
    const { harness, events } = recording();
    await elicitationOf(harness.broker.requestToken(ask, harness.context));
    expect(events[0]).not.toHaveProperty('clientId');
  });
});

describe('a completed provider login emits broker.login_completed, once, without token material', () => {
  it('emits the completion with status 200 after the grant is stored', async () => {
    const { harness, events, callback } = await loggedIn();
    mockTokenEndpoint(server, ACME_TOKEN, () =>
      tokenResponse({ access_token: 'access-1', refresh_token: 'refresh-1', expires_in: 3600 }),
    );
    expect((await harness.broker.callback(callback)).status).toBe(200);
    expect(events.map((event) => event.reason)).toEqual(['broker.login_started', 'broker.login_completed']);
    expect(events[1]).toMatchObject({ ...asker, status: 200 });
    expectNoSecrets(events, [new URLSearchParams(callback.query).get('state')!]);
  });
});

describe('a refused or failed provider login emits broker.login_failed.<why> with the page status', () => {
  it('state_unknown for a state used twice (no tenant is known then: only the signed-in user)', async () => {
    const { harness, events, callback } = await loggedIn();
    mockTokenEndpoint(server, ACME_TOKEN, () => tokenResponse({ access_token: 'access-1' }));
    await harness.broker.callback(callback);
    expect((await harness.broker.callback(callback)).status).toBe(400);
    const last = events.at(-1)!;
    expect(last).toEqual({
      at: T0,
      category: 'broker',
      reason: 'broker.login_failed.state_unknown',
      status: 400,
      userId: 'user-1',
    });
  });

  it('state_unknown for a malformed state, only from a signed-in browser', async () => {
    const { harness, events } = recording();
    const url = 'https://host.example/auth/oauth/callback?state=x&code=c';
    await harness.broker.callback(getRequest(url));
    expect(events).toEqual([]);
    await harness.broker.callback(getRequest(url, 'u'));
    expect(events).toEqual([
      expect.objectContaining({ reason: 'broker.login_failed.state_unknown', userId: 'u' }),
    ]);
  });

  it('state_unknown for a state that expired (older than five minutes)', async () => {
    const { harness, events, callback } = await loggedIn();
    harness.clock.advance(6 * MINUTE);
    await harness.broker.callback(callback);
    expect(events.at(-1)).toMatchObject({ reason: 'broker.login_failed.state_unknown', status: 400 });
  });

  it('wrong_user for a callback opened by another account (the asker is named, status 403)', async () => {
    const { harness, events, callback } = await loggedIn();
    await harness.broker.callback({ ...callback, userId: 'mallory' });
    expect(events.at(-1)).toMatchObject({ ...asker, reason: 'broker.login_failed.wrong_user', status: 403 });
    expect(JSON.stringify(events)).not.toContain('mallory');
  });

  it('wrong_user for a connect link opened by another account', async () => {
    const { harness, events, context } = recording();
    const error = await elicitationOf(harness.broker.requestToken(ask, context));
    expect((await harness.broker.connect(getRequest(error.elicitationUrl, 'mallory'))).status).toBe(403);
    expect(events.at(-1)).toMatchObject({ ...asker, reason: 'broker.login_failed.wrong_user', status: 403 });
  });

  it('provider_denied for an error from the provider (its text is not in the event)', async () => {
    const { harness, events, callback } = await loggedIn();
    const params = new URLSearchParams(callback.query);
    params.delete('code');
    params.set('error', 'access_denied');
    await harness.broker.callback({ ...callback, query: params.toString() });
    expect(events.at(-1)).toMatchObject({
      ...asker,
      reason: 'broker.login_failed.provider_denied',
      status: 400,
    });
    expect(JSON.stringify(events)).not.toContain('access_denied');
  });

  it('code_missing for a redirect without a code', async () => {
    const { harness, events, callback } = await loggedIn();
    const params = new URLSearchParams(callback.query);
    params.delete('code');
    await harness.broker.callback({ ...callback, query: params.toString() });
    expect(events.at(-1)).toMatchObject({ reason: 'broker.login_failed.code_missing', status: 400 });
  });

  it('exchange_refused when the token endpoint refuses the code', async () => {
    const { harness, events, callback } = await loggedIn();
    mockTokenEndpoint(server, ACME_TOKEN, () => tokenResponse({ error: 'invalid_grant' }, 400));
    await harness.broker.callback(callback);
    expect(events.at(-1)).toMatchObject({
      ...asker,
      reason: 'broker.login_failed.exchange_refused',
      status: 400,
    });
  });

  it('provider_unavailable when the token endpoint fails (status 502)', async () => {
    const { harness, events, callback } = await loggedIn();
    server.use(http.post(ACME_TOKEN, () => new HttpResponse('down', { status: 503 })));
    await harness.broker.callback(callback);
    expect(events.at(-1)).toMatchObject({ reason: 'broker.login_failed.provider_unavailable', status: 502 });
  });
});

describe('refreshes emit broker.token_refreshed, or why they failed', () => {
  async function connected(refresh: (params: Record<string, string>) => Response) {
    const recorded = await loggedIn();
    mockTokenEndpoint(server, ACME_TOKEN, (params) =>
      params.grant_type === 'refresh_token'
        ? refresh(params)
        : tokenResponse({ access_token: 'access-1', refresh_token: 'refresh-1', expires_in: 3600 }),
    );
    await recorded.harness.broker.callback(recorded.callback);
    recorded.events.length = 0;
    return recorded;
  }

  it('token_refreshed (200) when a stale token is refreshed', async () => {
    const { harness, events, context } = await connected(() =>
      tokenResponse({ access_token: 'access-2', refresh_token: 'refresh-2', expires_in: 3600 }),
    );
    harness.clock.advance(56 * MINUTE);
    expect(await harness.broker.requestToken(ask, context)).toEqual({ ok: true, accessToken: 'access-2' });
    expect(events).toEqual([
      { ...asker, at: T0 + 56 * MINUTE, reason: 'broker.token_refreshed', status: 200, clientId: 'app-1' },
    ]);
    expectNoSecrets(events);
  });

  it('token_revoked.provider (401) when the provider refuses the refresh token, then a new login starts', async () => {
    const { harness, events, context } = await connected(() =>
      tokenResponse({ error: 'invalid_grant' }, 400),
    );
    harness.clock.advance(61 * MINUTE);
    await elicitationOf(harness.broker.requestToken(ask, context));
    expect(events.map((event) => [event.reason, event.status])).toEqual([
      ['broker.token_revoked.provider', 401],
      ['broker.login_started', 401],
    ]);
  });

  it('refresh_failed.client_refused (502) when the provider refuses the host credentials', async () => {
    const { harness, events, context } = await connected(() =>
      tokenResponse({ error: 'invalid_client' }, 401),
    );
    harness.clock.advance(56 * MINUTE);
    await harness.broker.requestToken(ask, context);
    expect(events[0]).toMatchObject({ reason: 'broker.refresh_failed.client_refused', status: 502 });
  });

  it('refresh_failed.provider_unavailable (502) when the provider cannot be reached', async () => {
    const { harness, events, context } = await connected(() => new HttpResponse('down', { status: 503 }));
    harness.clock.advance(56 * MINUTE);
    // Inside the buffer the old token is still handed out: the failure is recorded all the same.
    expect(await harness.broker.requestToken(ask, context)).toEqual({ ok: true, accessToken: 'access-1' });
    expect(events).toEqual([
      expect.objectContaining({ reason: 'broker.refresh_failed.provider_unavailable', status: 502 }),
    ]);
  });
});

describe('deleting a grant emits broker.token_deleted; deleting none emits nothing', () => {
  it('deletes the stored grant, emits once, and the next ask starts a new login', async () => {
    const { harness, events, context, callback } = await loggedIn();
    mockTokenEndpoint(server, ACME_TOKEN, () => tokenResponse({ access_token: 'access-1' }));
    await harness.broker.callback(callback);
    events.length = 0;
    expect(await harness.broker.deleteGrant(ask, context)).toBe(true);
    expect(await harness.broker.deleteGrant(ask, context)).toBe(false);
    expect(events).toEqual([
      { ...asker, at: T0, reason: 'broker.token_deleted', status: 200, clientId: 'app-1' },
    ]);
    await elicitationOf(harness.broker.requestToken(ask, context));
  });
});

describe('every reason emitted is in the versioned catalogue, which the README documents', () => {
  it('lists each catalogue code in the README table', async () => {
    const { readFile } = await import('node:fs/promises');
    const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');
    const section = readme.slice(readme.indexOf('## Events and reason codes v1'));
    for (const reason of BROKER_EVENT_REASONS) expect(section).toContain(`\`${reason}\``);
  });
});

describe('the events hook never changes an answer', () => {
  it('a throwing hook is logged by reason only and the link is still given', async () => {
    const warnings: unknown[] = [];
    const logger = {
      debug() {},
      info() {},
      warn: (fields: unknown) => void warnings.push(fields),
      error() {},
    };
    const harness = makeHarness({
      logger: logger as never,
      events: {
        onEvent: () => {
          throw new Error('hook broke with user-1 inside');
        },
      },
    });
    const error = await elicitationOf(harness.broker.requestToken(ask, harness.context));
    expect(error.elicitationUrl).toContain('elicitation_id=');
    expect(warnings).toEqual([
      { event: 'event_hook_failed', reason: 'broker.login_started', error: 'Error' },
    ]);
  });

  it('a rejecting hook is logged too', async () => {
    const warnings: unknown[] = [];
    const logger = { debug() {}, info() {}, warn: (f: unknown) => void warnings.push(f), error() {} };
    const harness = makeHarness({
      logger: logger as never,
      events: { onEvent: () => Promise.reject(new TypeError('x')) },
    });
    await elicitationOf(harness.broker.requestToken(ask, harness.context));
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(warnings).toEqual([
      { event: 'event_hook_failed', reason: 'broker.login_started', error: 'TypeError' },
    ]);
  });

  it('refuses an events option that is not an object, or a hook that is not a function', () => {
    const { storage } = makeHarness();
    for (const events of [42, { onEvent: 'log' }]) {
      expect(() =>
        createTokenBroker({
          baseUrl: 'https://host.example',
          vault: { encrypt: async () => '', decrypt: async () => '', rewrap: async () => '' } as never,
          storage,
          providers: [],
          events: events as never,
        }),
      ).toThrow(/events/);
    }
  });
});
