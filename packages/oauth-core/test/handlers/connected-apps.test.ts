import type { HandlerResult } from '@keyhold/core';
import { describe, expect, it } from 'vitest';
import { createMemoryStorage } from '../../src/index.js';
import { faultyStorage } from '../faults/faulty-storage.js';
import {
  authorizeRequest,
  BASE_URL,
  createTestServer,
  decodePayload,
  get,
  ISSUER,
  obtainTokens,
  postForm,
  registerClient,
  type TestServer,
  type TestServerOptions,
  USER,
} from '../helpers.js';

const PAGE = '/tenant/demo/connected-apps';
const OTHER = 'user-2';

/** A user's code flow for a new public client: the grant id its access token carries, and the token. */
async function connect(t: TestServer, userId = USER, metadata: Record<string, unknown> = {}) {
  const client = await registerClient(t.server, { token_endpoint_auth_method: 'none', ...metadata });
  const tokens = await obtainTokens(t, client, { userId, scope: 'mcp:tools offline_access' });
  const accessToken = String(tokens.access_token);
  return { client, accessToken, grantId: String(decodePayload(accessToken).grant_id) };
}

/** `null`: no signed-in user. */
const page = (t: TestServer, userId: string | null = USER, query: Record<string, string> = {}) =>
  t.server.connectedAppsPage(get(PAGE, query, userId ?? undefined), 'demo');

/** What a browser does: load the page (getting its cookie and form token), then post a revoke. */
async function revoke(
  t: TestServer,
  grantId: string,
  userId = USER,
  tamper: { csrfToken?: string; cookie?: string; origin?: string } = {},
): Promise<HandlerResult> {
  const loaded = await page(t, userId);
  const cookie = tamper.cookie ?? (loaded.headers['set-cookie'] ?? '').split(';', 1)[0]!;
  const csrfToken = tamper.csrfToken ?? /name="csrf_token" value="([^"]+)"/.exec(loaded.body ?? '')![1]!;
  return t.server.connectedAppsRevoke(
    postForm(
      PAGE,
      { grant_id: grantId, csrf_token: csrfToken },
      { cookie, ...(tamper.origin === undefined ? {} : { origin: tamper.origin }) },
      userId,
    ),
    'demo',
  );
}

async function setup(options: TestServerOptions = {}) {
  const t = await createTestServer({ tenant: { displayName: 'Acme Docs' }, ...options });
  return { t, ...(await connect(t, USER, { client_name: 'Notes Agent' })) };
}

const isActive = async (t: TestServer, grantId: string) =>
  (await t.storage.grants.get('demo', grantId))?.revokedAt === undefined;

describe('the page lists only the signed-in user’s grants', () => {
  it('shows the user’s grant with the client’s name and id, and not another user’s', async () => {
    const { t, client, grantId } = await setup();
    const theirs = await connect(t, OTHER, { client_name: 'Someone Else’s App' });
    const result = await page(t);
    expect(result.status).toBe(200);
    expect(result.body).toContain('Notes Agent');
    expect(result.body).toContain(client.client_id);
    expect(result.body).toContain(`value="${grantId}"`);
    expect(result.body).not.toContain('Someone Else');
    expect(result.body).not.toContain(theirs.grantId);
  });

  it('names the service and the signed-in user', async () => {
    const { t } = await setup();
    const body = (await page(t)).body ?? '';
    expect(body).toContain('<strong class="service-name">Acme Docs</strong>');
    expect(body).toContain(`<strong class="user-name">${USER}</strong>`);
  });

  it('says what each grant may do in the tenant’s plain words, with offline access labelled as lasting', async () => {
    const { t } = await setup({
      tenant: { displayName: 'Acme Docs', scopeDescriptions: { 'mcp:tools': 'edit your documents' } },
    });
    const body = (await page(t)).body ?? '';
    expect(body).toContain('edit your documents');
    expect(body).toContain('stay connected when you are away');
    expect(body).toContain('Lasting access');
    expect(body).toContain('<time datetime="2026-03-01T12:00:00.000Z">2026-03-01 12:00 UTC</time>');
  });

  it('leaves out revoked grants', async () => {
    const { t, grantId } = await setup();
    await t.server.grants.revoke('demo', grantId);
    expect((await page(t)).body).not.toContain(grantId);
  });

  it('sends a browser without a signed-in user to the login page, with the way back', async () => {
    const { t } = await setup();
    const result = await page(t, null);
    expect(result.status).toBe(303);
    const target = new URL(result.headers.location ?? '');
    expect(`${target.origin}${target.pathname}`).toBe(`${ISSUER}/login`);
    expect(target.searchParams.get('return_to')).toBe(`${ISSUER}/connected-apps`);
  });

  it('serves the single user in single-user mode', async () => {
    const t = await createTestServer({ tenant: { singleUserId: USER }, options: { singleUserMode: true } });
    await connect(t, USER, { client_name: 'Solo App' });
    expect((await page(t, null)).body).toContain('Solo App');
  });

  it('is served by fetch at {issuer}/connected-apps, and ownsPath knows it', async () => {
    const { t } = await setup();
    expect(t.server.ownsPath(PAGE)).toBe(true);
    const response = await t.server.fetch(new Request(`${BASE_URL}${PAGE}`), { userId: USER });
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('Notes Agent');
    expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(response.headers.get('set-cookie')).toMatch(
      /^keyhold_apps=.*Path=\/tenant\/demo\/connected-apps;.*HttpOnly; SameSite=Strict; Secure$/,
    );
  });
});

describe('revoking needs a valid anti-forgery token (403 otherwise) and works once', () => {
  it('revokes with the page’s token, redirects back with a notice, and the access token is refused', async () => {
    const { t, grantId, accessToken } = await setup();
    const result = await revoke(t, grantId);
    expect(result.status).toBe(303);
    expect(result.headers.location).toBe(`${ISSUER}/connected-apps?notice=revoked`);
    expect(await isActive(t, grantId)).toBe(false);
    expect((await t.storage.grants.get('demo', grantId))?.revokedReason).toBe('user');
    const check = await t.server.verifyAccessToken('demo', `Bearer ${accessToken}`);
    expect(check.ok).toBe(false);
    const after = await page(t, USER, { notice: 'revoked' });
    expect(after.body).toContain('The application was disconnected.');
    expect(after.body).not.toContain(grantId);
  });

  it('a second revoke of the same grant answers not found', async () => {
    const { t, grantId } = await setup();
    // A second app keeps a form (and its token) on the page once the first is gone.
    await connect(t, USER, { client_name: 'Second App' });
    await revoke(t, grantId);
    const again = await revoke(t, grantId);
    expect(again.headers.location).toBe(`${ISSUER}/connected-apps?notice=not_found`);
  });

  it('refuses a missing, a wrong and another user’s token with 403 and revokes nothing', async () => {
    const { t, grantId } = await setup();
    await connect(t, OTHER);
    const otherPage = await page(t, OTHER);
    const otherToken = /name="csrf_token" value="([^"]+)"/.exec(otherPage.body ?? '')![1]!;
    const otherCookie = (otherPage.headers['set-cookie'] ?? '').split(';', 1)[0]!;
    for (const tamper of [
      { csrfToken: '' },
      { csrfToken: 'x'.repeat(43) },
      { cookie: '' },
      // The other user's own pair: bound to their user, worthless in this session.
      { csrfToken: otherToken, cookie: otherCookie },
    ]) {
      const result = await revoke(t, grantId, USER, tamper);
      expect(result.status).toBe(403);
      expect(await isActive(t, grantId)).toBe(true);
    }
  });

  it('refuses a cross-site Origin with 403', async () => {
    const { t, grantId } = await setup();
    const result = await revoke(t, grantId, USER, { origin: 'https://evil.example' });
    expect(result.status).toBe(403);
    expect(await isActive(t, grantId)).toBe(true);
  });
});

describe('foreign and unknown grant ids answer alike', () => {
  it('another user’s grant id answers exactly like an unknown one and stays active', async () => {
    const { t, grantId } = await setup();
    await connect(t, OTHER);
    const foreign = await revoke(t, grantId, OTHER);
    const unknown = await revoke(t, 'no-such-grant', OTHER);
    expect(foreign.status).toBe(303);
    expect(foreign).toEqual(unknown);
    expect(foreign.headers.location).toBe(`${ISSUER}/connected-apps?notice=not_found`);
    expect(await isActive(t, grantId)).toBe(true);
  });
});

describe('client-supplied names are escaped', () => {
  it('shows markup and bidirectional overrides in a client name as text', async () => {
    const t = await createTestServer();
    await connect(t, USER, { client_name: '<script>alert(1)</script>\u202Eevil' });
    const body = (await page(t)).body ?? '';
    expect(body).not.toContain('<script>');
    expect(body).toContain('&lt;script&gt;alert(1)&lt;/script&gt;\uFFFDevil');
    expect(body).not.toContain('\u202E');
  });
});

describe('the page and its strings are replaceable', () => {
  it('uses replaced strings', async () => {
    const { t } = await setup({
      options: { connectedApps: { strings: { revoke: 'Disconnect', lang: 'en-GB' } } },
    });
    const body = (await page(t)).body ?? '';
    expect(body).toContain('>Disconnect</button>');
    expect(body).toContain('<html lang="en-GB">');
  });

  it('renders with the host’s renderer, given the view, the strings and the built-in page', async () => {
    const { t, grantId } = await setup({
      options: {
        connectedApps: {
          render: (view, strings, builtIn) => ({
            html: `<p>${view.grants.map((g) => g.grantId).join(',')} ${view.form.fields.csrf_token !== ''}</p>${builtIn(view, strings).length > 0}`,
            contentSecurityPolicy: "default-src 'self'",
          }),
        },
      },
    });
    const result = await page(t);
    expect(result.body).toBe(`<p>${grantId} true</p>true`);
    expect(result.headers['content-security-policy']).toBe("default-src 'self'");
  });

  it('refuses an unknown string name when the server is created', async () => {
    await expect(
      createTestServer({ options: { connectedApps: { strings: { nope: 'x' } as never } } }),
    ).rejects.toThrow(/connectedApps\.strings\.nope/);
  });

  it('connectedApps: false serves no page', async () => {
    const { t } = await setup({ options: { connectedApps: false } });
    expect(t.server.ownsPath(PAGE)).toBe(false);
    const response = await t.server.fetch(new Request(`${BASE_URL}${PAGE}`), { userId: USER });
    expect(response.status).toBe(404);
  });
});

describe('no grant, no list', () => {
  it('says so in a sentence when the user has no connected app', async () => {
    const t = await createTestServer();
    const body = (await page(t)).body ?? '';
    expect(body).toContain('No application is connected to your account.');
    expect(body).not.toContain('class="grants"');
  });
});

describe('the consent page links to the connected-apps page when the server serves one', () => {
  async function consentPageBody(options: TestServerOptions = {}) {
    const t = await createTestServer(options);
    const client = await registerClient(t.server, { token_endpoint_auth_method: 'none' });
    const authorize = await t.server.authorize(authorizeRequest(client.client_id), 'demo');
    const req = new URL(authorize.headers.location ?? '').searchParams.get('req') ?? '';
    return (await t.server.consentPage(get('/tenant/demo/consent', { req }, USER), 'demo')).body ?? '';
  }

  it('links to {issuer}/connected-apps', async () => {
    expect(await consentPageBody()).toContain(
      `<a href="${ISSUER}/connected-apps">your connected apps page</a>`,
    );
  });

  it('has no link with connectedApps: false', async () => {
    expect(await consentPageBody({ options: { connectedApps: false } })).not.toContain('connected-apps');
  });
});

describe('a store outage answers 503, never a hang or a crash', () => {
  it('the page and the revoke answer the 503 page with Retry-After when the grant store is unavailable', async () => {
    const faults = faultyStorage(createMemoryStorage());
    const t = await createTestServer({ options: { storage: faults.storage } });
    const { grantId } = await connect({ ...t, storage: faults.storage });
    faults.fail('grants.list', 'unavailable');
    const outage = await page(t);
    expect(outage.status).toBe(503);
    expect(outage.headers['retry-after']).toBeDefined();
    expect(outage.body).toContain('temporarily unavailable');
    const loaded = await page(t);
    const cookie = (loaded.headers['set-cookie'] ?? '').split(';', 1)[0]!;
    const csrfToken = /name="csrf_token" value="([^"]+)"/.exec(loaded.body ?? '')![1]!;
    faults.fail('grants.get', 'unavailable');
    const posted = await t.server.connectedAppsRevoke(
      postForm(PAGE, { grant_id: grantId, csrf_token: csrfToken }, { cookie }, USER),
      'demo',
    );
    expect(posted.status).toBe(503);
    expect(await isActive({ ...t, storage: faults.storage }, grantId)).toBe(true);
  });
});

/** The page's activity section, or '' when it has none. */
const activityOf = (body: string | undefined): string =>
  /<section class="activity"[\s\S]*?<\/section>/.exec(body ?? '')?.[0] ?? '';

/** Lets the timeline's appends (not awaited by the requests) land. */
const settled = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('the page lists the signed-in user’s own recent activity from the timeline', () => {
  it('shows the user’s decisions in plain words, the raw reason in small print, the client name and the time', async () => {
    const { t, client } = await setup();
    await settled();
    const section = activityOf((await page(t)).body);
    expect(section).toContain('<h2 id="activity-heading">Recent activity</h2>');
    expect(section).toContain(`client <code>${client.client_id}</code>`);
    expect(section).toContain('You allowed an application');
    expect(section).toContain('<small class="activity-reason">reason <code>consent.approved</code>');
    expect(section).toContain('Application: <strong>Notes Agent</strong>');
    expect(section).toContain('<time datetime="2026-03-01T12:00:00.000Z">2026-03-01 12:00 UTC</time>');
  });

  it('never shows another user’s events, nor a token or a grant id', async () => {
    const { t, grantId, accessToken } = await setup();
    const theirs = await connect(t, OTHER, { client_name: 'Someone Else’s App' });
    await settled();
    const section = activityOf((await page(t)).body);
    expect(section).toContain('Notes Agent');
    expect(section).not.toContain('Someone Else');
    expect(section).not.toContain(theirs.client.client_id);
    for (const secret of [grantId, accessToken, theirs.grantId, theirs.accessToken]) {
      expect(section).not.toContain(secret);
    }
  });

  it('lists at most 20 events, newest first', async () => {
    const t = await createTestServer();
    const limits = { maxEventsPerTenant: 1000, notBefore: 0 };
    for (let i = 0; i < 30; i++) {
      await t.storage.events!.append(
        {
          at: Date.parse('2026-03-01T12:00:00Z') + i * 60_000,
          tenant: 'demo',
          category: 'broker',
          reason: i === 29 ? 'broker.login_completed' : 'broker.login_started',
          status: 200,
          userId: USER,
        },
        limits,
      );
    }
    const section = activityOf((await page(t)).body);
    expect(section.match(/class="activity-entry"/g)).toHaveLength(20);
    expect(section.indexOf('broker.login_completed')).toBeLessThan(section.indexOf('broker.login_started'));
    expect(section).toContain('You connected another service for a tool');
    expect(section).toContain('2026-03-01 12:29 UTC');
    expect(section).not.toContain('2026-03-01 12:09 UTC');
  });

  it('words a code without words of its own by its longest prefix that has some', async () => {
    const t = await createTestServer();
    await t.storage.events!.append(
      {
        at: 0,
        tenant: 'demo',
        category: 'resource',
        reason: 'token.rejected.expired',
        status: 401,
        userId: USER,
      },
      { maxEventsPerTenant: 10, notBefore: 0 },
    );
    const section = activityOf((await page(t)).body);
    expect(section).toContain('An application’s access was refused');
    expect(section).toContain('<code>token.rejected.expired</code>');
  });

  it('says so in a sentence when the user has no activity yet', async () => {
    const t = await createTestServer();
    expect(activityOf((await page(t)).body)).toContain('Nothing has happened with your account lately.');
  });

  it('still lists the grants when the timeline cannot be read, and says the activity cannot be shown', async () => {
    const storage = createMemoryStorage();
    const failing = {
      ...storage,
      events: { append: storage.events!.append, list: () => Promise.reject(new Error('down')) },
    };
    const t = await createTestServer({ tenant: { displayName: 'Acme Docs' }, options: { storage: failing } });
    await connect({ ...t, storage: failing }, USER, { client_name: 'Notes Agent' });
    const result = await page(t);
    expect(result.status).toBe(200);
    expect(result.body).toContain('Notes Agent');
    expect(activityOf(result.body)).toContain('Recent activity cannot be shown right now.');
  });

  it('has no activity section when the server keeps no timeline', async () => {
    const { events: _none, ...storage } = createMemoryStorage();
    const t = await createTestServer({ options: { storage } });
    const body = (await page(t)).body ?? '';
    expect(body).toContain('No application is connected');
    expect(activityOf(body)).toBe('');
  });
});

describe('the activity section’s strings are replaceable, reason words one by one', () => {
  it('uses a replaced heading and replaced words for one code, keeping the built-in words of the others', async () => {
    const { t } = await setup({
      options: {
        connectedApps: {
          strings: {
            activityHeading: 'Letzte Ereignisse',
            activityReasons: { 'consent.approved': 'Sie haben eine Anwendung erlaubt' },
          },
        },
      },
    });
    await settled();
    const section = activityOf((await page(t)).body);
    expect(section).toContain('>Letzte Ereignisse</h2>');
    expect(section).toContain('Sie haben eine Anwendung erlaubt');
    expect(section).toContain('An application received access');
  });

  it('refuses activityReasons that are not strings when the server is created', async () => {
    await expect(
      createTestServer({
        options: { connectedApps: { strings: { activityReasons: { 'consent.approved': 1 } as never } } },
      }),
    ).rejects.toThrow(/activityReasons/);
  });
});
