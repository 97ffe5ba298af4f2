import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  authorizeRequest,
  BASE_URL,
  consentFormFields,
  createTestServer,
  get,
  ISSUER,
  location,
  pkce,
  postForm,
  REDIRECT_URI,
  registerClient,
  USER,
} from '../helpers.js';

async function pendingRequest(
  clientName = 'Example App',
  options: { redirectUri?: string; singleUser?: boolean; userId?: string } = {},
) {
  const redirectUri = options.redirectUri ?? REDIRECT_URI;
  const owner = options.userId ?? USER;
  const t = await createTestServer(
    options.singleUser ? { tenant: { singleUserId: owner }, options: { singleUserMode: true } } : {},
  );
  const client = await registerClient(t.server, {
    token_endpoint_auth_method: 'none',
    client_name: clientName,
    client_uri: 'https://app.example/about',
    redirect_uris: [redirectUri],
  });
  const { challenge } = pkce();
  const result = await t.server.authorize(
    get(
      '/tenant/demo/authorize',
      {
        client_id: client.client_id,
        response_type: 'code',
        redirect_uri: redirectUri,
        code_challenge: challenge,
        code_challenge_method: 'S256',
        state: 'st',
        scope: 'openid mcp',
      },
      options.singleUser ? undefined : owner,
    ),
    'demo',
  );
  const req = location(result).searchParams.get('req') ?? '';
  const page = await t.server.consentPage(
    get('/tenant/demo/consent', { req }, options.singleUser ? undefined : owner),
    'demo',
  );
  const form = consentFormFields(page);
  // What the browser posts back: the page's cookie and the form's token (tests may change either).
  const decide = (
    decision: string,
    userId: string | null = options.singleUser ? null : owner,
    reqValue = req,
    extra: { cookie?: string; csrfToken?: string | null; headers?: Record<string, string> } = {},
  ) => {
    const csrfToken = extra.csrfToken === undefined ? form.csrfToken : extra.csrfToken;
    return t.server.consent(
      postForm(
        '/tenant/demo/consent',
        { req: reqValue, decision, ...(csrfToken === null ? {} : { csrf_token: csrfToken }) },
        { ...(extra.cookie === '' ? {} : { cookie: extra.cookie ?? form.cookie }), ...extra.headers },
        userId ?? undefined,
      ),
      'demo',
    );
  };
  return { t, client, req, page, form, decide };
}

describe('GET /consent renders the consent screen', () => {
  it('shows the client name, its host and each scope, escaped, with a form posting req, decision and csrf_token', async () => {
    const { t, req } = await pendingRequest('<img src=x onerror=alert(1)>');
    const page = await t.server.consentPage(get('/tenant/demo/consent', { req }, USER), 'demo');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(page.headers['content-security-policy']).toContain("form-action 'self' https://app.example");
    expect(page.body).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(page.body).not.toContain('<img');
    expect(page.body).toContain('app.example');
    expect(page.body).toContain('<li><code>mcp</code></li>');
    expect(page.body).toContain(`action="${ISSUER}/consent"`);
    expect(page.body).toContain(`name="req" value="${req}"`);
    expect(page.body).toMatch(/name="csrf_token" value="[A-Za-z0-9_-]{43}"/);
    expect(page.body).toContain('name="decision" value="approve"');
    expect(page.body).toContain('name="decision" value="deny"');
    expect(page.body).toContain('<html lang="en">');
  });

  it('shows no raw bidirectional override from a client name or redirect URI (it could reorder the text)', async () => {
    const { t, req } = await pendingRequest('Example \u202Eexe.elpmaxe\u202C App\u2066', {
      redirectUri: 'https://app.example/cb?\u202Egnp.exe',
    });
    const page = await t.server.consentPage(get('/tenant/demo/consent', { req }, USER), 'demo');
    expect(page.status).toBe(200);
    expect(page.body).not.toMatch(/[\u202A-\u202E\u2066-\u2069]/);
    expect(page.body).toContain('Example \uFFFDexe.elpmaxe\uFFFD App\uFFFD');
    expect(page.body).toContain('https://app.example/cb?\uFFFDgnp.exe');
  });

  it('an unknown req gets a clear error page', async () => {
    const { t } = await pendingRequest();
    const page = await t.server.consentPage(get('/tenant/demo/consent', { req: 'nope' }, USER), 'demo');
    expect(page.status).toBe(400);
    expect(page.body).toContain('expired or is unknown');
  });

  it('an expired req (after 10 minutes) gets the same error page', async () => {
    const { t, req } = await pendingRequest();
    t.clock.advance(600_001);
    const page = await t.server.consentPage(get('/tenant/demo/consent', { req }, USER), 'demo');
    expect(page.status).toBe(400);
    expect(page.body).toContain('expired or is unknown');
  });

  it('another user may not see the screen (403)', async () => {
    const { t, req } = await pendingRequest();
    const page = await t.server.consentPage(get('/tenant/demo/consent', { req }, 'intruder'), 'demo');
    expect(page.status).toBe(403);
  });
});

describe('POST /consent: pending authorization → code issued / denied', () => {
  it('approve saves the consent record (30 days) and redirects with code, state and iss', async () => {
    const { t, client, decide } = await pendingRequest();
    const target = location(await decide('approve'));
    expect(target.origin + target.pathname).toBe(REDIRECT_URI);
    expect(target.searchParams.get('code')).toMatch(/^[A-Za-z0-9_-]{32,}$/);
    expect(target.searchParams.get('state')).toBe('st');
    expect(target.searchParams.get('iss')).toBe(ISSUER);
    const consents = await t.storage.consents.list('demo', USER, client.client_id, t.clock.now());
    expect(consents).toEqual([
      {
        userId: USER,
        clientId: client.client_id,
        scopes: ['mcp', 'openid'],
        grantedAt: t.clock.now(),
        expiresAt: t.clock.now() + 30 * 86_400_000,
      },
    ]);
  });

  it('deny redirects with access_denied and saves nothing', async () => {
    const { t, client, decide } = await pendingRequest();
    const target = location(await decide('deny'));
    expect(target.searchParams.get('error')).toBe('access_denied');
    expect(target.searchParams.get('state')).toBe('st');
    expect(target.searchParams.get('iss')).toBe(ISSUER);
    expect(await t.storage.consents.list('demo', USER, client.client_id, t.clock.now())).toEqual([]);
  });

  it('only the user who started the request may decide: 403, and the request is kept', async () => {
    const { t, req, decide } = await pendingRequest();
    expect((await decide('approve', 'intruder')).status).toBe(403);
    expect((await decide('approve', null)).status).toBe(403);
    expect(await t.storage.pendingAuthorizations.get('demo', req)).toBeDefined();
    expect(location(await decide('approve')).searchParams.get('code')).toMatch(/^[A-Za-z0-9_-]{32,}$/);
  });

  it('a request is decided once: a second decision gets the error page', async () => {
    const { decide } = await pendingRequest();
    await decide('approve');
    const again = await decide('approve');
    expect(again.status).toBe(400);
    expect(again.body).toContain('expired or is unknown');
  });

  it('an expired request cannot be approved', async () => {
    const { t, decide } = await pendingRequest();
    t.clock.advance(600_001);
    expect((await decide('approve')).status).toBe(400);
  });

  it('a decision other than approve or deny is refused without spending the request', async () => {
    const { t, req, decide } = await pendingRequest();
    expect((await decide('maybe')).status).toBe(400);
    expect(await t.storage.pendingAuthorizations.get('demo', req)).toBeDefined();
  });
});

describe('POST /consent: anti-forgery token (double submit bound to the pending request)', () => {
  it('the page sets an HttpOnly, SameSite=Strict cookie on the consent path, Secure under an https issuer', async () => {
    const { page } = await pendingRequest();
    const cookie = page.headers['set-cookie'] ?? '';
    expect(cookie).toMatch(/^keyhold_consent=[A-Za-z0-9_-]{43}; /);
    expect(cookie).toContain('; Path=/tenant/demo/consent');
    expect(cookie).toContain('; HttpOnly');
    expect(cookie).toContain('; SameSite=Strict');
    expect(cookie).toContain('; Secure');
    expect(cookie).toContain('; Max-Age=600');
  });

  it('derives the form token from the cookie secret and the request: SHA-256 of "secret.req", base64url', async () => {
    const { req, form } = await pendingRequest();
    const secret = form.cookie.split('=')[1] ?? '';
    expect(form.csrfToken).toBe(createHash('sha256').update(`${secret}.${req}`).digest('base64url'));
  });

  it.each([
    ['no csrf_token', { csrfToken: null }],
    ['a wrong csrf_token', { csrfToken: 'A'.repeat(43) }],
    ['no cookie', { cookie: '' }],
    ['another cookie', { cookie: `keyhold_consent=${'B'.repeat(43)}` }],
  ])('%s: 403 error page, and the request stays pending', async (_, extra) => {
    const { t, req, decide } = await pendingRequest();
    const refused = await decide('approve', USER, req, extra);
    expect(refused.status).toBe(403);
    expect(refused.headers['content-type']).toMatch(/text\/html/);
    expect(refused.body).toContain('anti-forgery');
    expect(await t.storage.pendingAuthorizations.get('demo', req)).toBeDefined();
    expect(location(await decide('approve')).searchParams.get('code')).toMatch(/^[\w-]{20,}$/);
  });

  it('a token for another pending request (same browser) does not decide this one', async () => {
    const first = await pendingRequest();
    // A second request in the same server and browser: its page reuses the cookie, its token differs.
    const second = await first.t.server.authorize(
      authorizeRequest(first.client.client_id, { scope: 'openid', prompt: 'consent' }),
      'demo',
    );
    const req2 = location(second).searchParams.get('req') ?? '';
    const page2 = await first.t.server.consentPage(
      { ...get('/tenant/demo/consent', { req: req2 }, USER), headers: { cookie: first.form.cookie } },
      'demo',
    );
    const form2 = consentFormFields(page2);
    expect(form2.cookie).toBe(first.form.cookie);
    expect(form2.csrfToken).not.toBe(first.form.csrfToken);
    expect((await first.decide('approve', USER, req2)).status).toBe(403);
    // Both tabs still work with their own tokens.
    expect(
      location(await first.decide('approve', USER, req2, { csrfToken: form2.csrfToken })).searchParams.get(
        'code',
      ),
    ).toMatch(/^[\w-]{20,}$/);
    expect(location(await first.decide('approve')).searchParams.get('code')).toMatch(/^[\w-]{20,}$/);
  });

  it('applies in single-user mode too, where the page would otherwise need no login', async () => {
    const { t, req, decide } = await pendingRequest('Example App', { singleUser: true, userId: 'owner' });
    expect((await decide('approve', null, req, { csrfToken: null })).status).toBe(403);
    expect((await decide('approve', null, req, { cookie: '' })).status).toBe(403);
    expect(await t.storage.pendingAuthorizations.get('demo', req)).toBeDefined();
    expect(location(await decide('approve', null)).searchParams.get('code')).toMatch(/^[\w-]{20,}$/);
  });
});

describe('POST /consent: Origin', () => {
  it("a present Origin other than the server's is refused with the 403 error page, request kept", async () => {
    const { t, req, decide } = await pendingRequest();
    for (const origin of ['https://evil.example', 'null', 'http://auth.example']) {
      const refused = await decide('approve', USER, req, { headers: { origin } });
      expect(refused.status, origin).toBe(403);
      expect(refused.body).toContain('cross-origin request refused');
    }
    expect(await t.storage.pendingAuthorizations.get('demo', req)).toBeDefined();
  });

  it("the server's own origin (and no Origin at all) is accepted", async () => {
    const { decide } = await pendingRequest();
    const approved = await decide('approve', USER, undefined, { headers: { origin: BASE_URL } });
    expect(location(approved).searchParams.get('code')).toMatch(/^[\w-]{20,}$/);
  });

  it('the page asks for same-origin referrers, so the browser sends the real Origin with the form', async () => {
    const { page } = await pendingRequest();
    expect(page.headers['referrer-policy']).toBe('same-origin');
  });
});

describe('GET /consent: who receives the code, and what the client only claims', () => {
  it("names the redirect URI host prominently and labels the client name and website as the client's claim", async () => {
    const { page } = await pendingRequest('Totally Official <b>Bank</b>');
    expect(page.body).toContain(
      'After you approve, <strong class="recipient-host">app.example</strong> receives the authorization code.',
    );
    expect(page.body).toContain(`<code>${REDIRECT_URI}</code>`);
    expect(page.body).toContain(
      'The client says it is <strong class="client-name">Totally Official &lt;b&gt;Bank&lt;/b&gt;</strong>, and that its website is at <strong>app.example</strong>',
    );
    expect(page.body).toContain('has not been verified');
    expect(page.body).not.toContain('<b>Bank');
    expect(page.body).not.toContain('<title>Authorize Totally');
    expect(page.body).not.toContain('class="warnings"');
  });

  it('a loopback http redirect (a desktop client on this device) gets one combined note, not two warnings', async () => {
    const { page } = await pendingRequest('CLI', { redirectUri: 'http://127.0.0.1:43123/callback' });
    expect(page.body).toContain('<strong class="recipient-host">127.0.0.1:43123</strong> receives');
    expect(page.body?.match(/class="note"/g)).toHaveLength(1);
    expect(page.body).toContain('an application on this device (127.0.0.1:43123) and never leaves it');
    expect(page.body).not.toContain('class="warnings"');
    expect(page.body).not.toContain('unencrypted connection');
  });

  it('warns for a private-use scheme, which any application on the device can claim', async () => {
    const { page } = await pendingRequest('Mobile', { redirectUri: 'com.example.app:/oauth/cb' });
    expect(page.body).toContain(
      'the application on this device that handles <strong class="recipient-host">com.example.app:</strong> addresses receives the authorization code',
    );
    expect(page.body).toContain('Any application on this device can register the com.example.app: scheme');
  });

  it('shows no logo: a client-supplied image would look like a verified brand', async () => {
    const t = await createTestServer();
    const client = await registerClient(t.server, {
      token_endpoint_auth_method: 'none',
      logo_uri: 'https://evil.example/bank-logo.png',
    });
    const result = await t.server.authorize(authorizeRequest(client.client_id), 'demo');
    const req = location(result).searchParams.get('req') ?? '';
    const page = await t.server.consentPage(get('/tenant/demo/consent', { req }, USER), 'demo');
    expect(page.body).not.toContain('bank-logo');
    expect(page.body).not.toContain('<img');
  });
});
