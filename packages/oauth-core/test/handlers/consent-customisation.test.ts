import { describe, expect, it } from 'vitest';
import { DEFAULT_CONSENT_STRINGS, renderConsentPage } from '../../src/consent-screen.js';
import type { AuthorizationServerOptions, ConsentView } from '../../src/index.js';
import {
  consentFormFields,
  createTestServer,
  exchangeCode,
  get,
  location,
  pkce,
  postForm,
  REDIRECT_URI,
  registerClient,
  USER,
} from '../helpers.js';

/** A tenant with one registered public client and a started authorization (not yet answered). */
async function started(consent: AuthorizationServerOptions['consent']) {
  const t = await createTestServer(consent === undefined ? {} : { options: { consent } });
  const client = await registerClient(t.server, {
    token_endpoint_auth_method: 'none',
    client_name: 'Example <App>',
    redirect_uris: [REDIRECT_URI],
  });
  const { verifier, challenge } = pkce();
  const authorize = await t.server.authorize(
    get(
      '/tenant/demo/authorize',
      {
        client_id: client.client_id,
        response_type: 'code',
        redirect_uri: REDIRECT_URI,
        code_challenge: challenge,
        code_challenge_method: 'S256',
        state: 'st',
        scope: 'openid mcp',
      },
      USER,
    ),
    'demo',
  );
  return { t, client, verifier, authorize, consentUrl: location(authorize) };
}

describe('consent strings: every sentence of the built-in page can be replaced', () => {
  it('shows replaced strings, escaped, and keeps the rest in English', async () => {
    const { t, consentUrl } = await started({
      strings: { lang: 'de', heading: 'Zugriff <erlauben>?', approve: 'Erlauben', deny: 'Ablehnen' },
    });
    const page = await t.server.consentPage(
      get('/tenant/demo/consent', { req: consentUrl.searchParams.get('req')! }, USER),
      'demo',
    );
    expect(page.status).toBe(200);
    expect(page.body).toContain('<html lang="de">');
    expect(page.body).toContain('<h1>Zugriff &lt;erlauben&gt;?</h1>');
    expect(page.body).toContain('value="approve">Erlauben</button>');
    expect(page.body).toContain('value="deny">Ablehnen</button>');
    expect(page.body).toContain(DEFAULT_CONSENT_STRINGS.scopesIntro);
    // The client's self-asserted name is still escaped inside a replaced sentence.
    expect(page.body).toContain('<strong class="client-name">Example &lt;App&gt;</strong>');
  });

  it('refuses an unknown string name when the server is created', async () => {
    await expect(
      createTestServer({ options: { consent: { strings: { headline: 'x' } as never } } }),
    ).rejects.toThrow(/consent.strings.headline/);
  });
});

describe('consent render: the host renders the page, the server keeps the anti-forgery check', () => {
  it('passes the view (client, scopes, recipient, form) and serves the HTML with the cookie and CSP', async () => {
    const seen: ConsentView[] = [];
    const { t, client, consentUrl, verifier } = await started({
      render: (view) => {
        seen.push(view);
        return `<form method="post" action="${view.form.action}"><input name="req" value="${view.form.fields.req}"><input name="csrf_token" value="${view.form.fields.csrf_token}"><button name="decision" value="approve">OK</button></form>`;
      },
    });
    const req = consentUrl.searchParams.get('req')!;
    const page = await t.server.consentPage(get('/tenant/demo/consent', { req }, USER), 'demo');
    expect(page.status).toBe(200);
    expect(page.headers['content-security-policy']).toContain("form-action 'self' https://app.example");
    expect(page.headers['set-cookie']).toMatch(/^keyhold_consent=/);
    expect(seen[0]).toMatchObject({
      tenant: 'demo',
      requestId: req,
      client: { id: client.client_id, name: 'Example <App>', type: 'registered' },
      scopes: ['mcp', 'openid'],
      redirectUri: REDIRECT_URI,
      recipient: { kind: 'web', host: 'app.example', unencrypted: false },
      form: { action: 'https://auth.example/tenant/demo/consent', fields: { req } },
    });
    // The host's page posts the same fields; the built-in route checks them as for its own page.
    const { cookie, csrfToken } = consentFormFields(page);
    const forged = await t.server.consent(
      postForm('/tenant/demo/consent', { req, decision: 'approve', csrf_token: 'forged' }, { cookie }, USER),
      'demo',
    );
    expect(forged.status).toBe(403);
    const approved = await t.server.consent(
      postForm('/tenant/demo/consent', { req, decision: 'approve', csrf_token: csrfToken }, { cookie }, USER),
      'demo',
    );
    const code = location(approved).searchParams.get('code');
    expect(code).toEqual(expect.any(String));
    const tokens = await exchangeCode(t, client, code!, verifier);
    expect(tokens.status).toBe(200);
  });

  it('uses the Content-Security-Policy a renderer returns with its page', async () => {
    const { t, consentUrl } = await started({
      render: () => ({ html: '<p>mine</p>', contentSecurityPolicy: "default-src 'self'" }),
    });
    const page = await t.server.consentPage(
      get('/tenant/demo/consent', { req: consentUrl.searchParams.get('req')! }, USER),
      'demo',
    );
    expect(page.body).toBe('<p>mine</p>');
    expect(page.headers['content-security-policy']).toBe("default-src 'self'");
  });
});

describe('consent pageUrl + consentRequest: the host serves the consent step itself', () => {
  const pageUrl = ({ tenant, requestId }: { tenant: string; requestId: string }) =>
    `https://app.host.example/consent?tenant=${tenant}&id=${requestId}`;

  it("sends the browser to the host's page with the request id", async () => {
    const { consentUrl } = await started({ pageUrl });
    expect(consentUrl.origin).toBe('https://app.host.example');
    expect(consentUrl.searchParams.get('id')).toEqual(expect.any(String));
  });

  it('gives the request as data, and approve() redirects to the client with a code that redeems', async () => {
    const { t, client, consentUrl, verifier } = await started({ pageUrl });
    const found = await t.server.consentRequest('demo', consentUrl.searchParams.get('id')!, USER);
    if (!found.ok) throw new Error(`expected a pending request, got ${found.reason}`);
    expect(found.request.client).toMatchObject({ id: client.client_id, name: 'Example <App>' });
    expect(found.request.scopes).toEqual(['mcp', 'openid']);
    const decision = await found.request.approve();
    if (!decision.ok) throw new Error(`expected a redirect, got ${decision.reason}`);
    const back = new URL(decision.location);
    expect(`${back.origin}${back.pathname}`).toBe(REDIRECT_URI);
    expect(back.searchParams.get('state')).toBe('st');
    expect(back.searchParams.get('iss')).toBe('https://auth.example/tenant/demo');
    const tokens = await exchangeCode(t, client, back.searchParams.get('code')!, verifier);
    expect(tokens.status).toBe(200);
  });

  it('deny() redirects with access_denied, and a request is answered once only', async () => {
    const { t, consentUrl } = await started({ pageUrl });
    const found = await t.server.consentRequest('demo', consentUrl.searchParams.get('id')!, USER);
    if (!found.ok) throw new Error(`expected a pending request, got ${found.reason}`);
    const [first, second] = await Promise.all([found.request.deny(), found.request.approve()]);
    const answers = [first, second].map((answer) => (answer.ok ? 'redirect' : answer.reason)).sort();
    expect(answers).toEqual(['expired', 'redirect']);
    const redirect = [first, second].find((answer) => answer.ok);
    expect(new URL((redirect as { location: string }).location).searchParams.get('error')).toBe(
      'access_denied',
    );
    expect(await t.server.consentRequest('demo', consentUrl.searchParams.get('id')!, USER)).toEqual({
      ok: false,
      reason: 'expired',
    });
  });

  it("answers wrong_user for another user's request, expired for an unknown one, unknown_tenant", async () => {
    const { t, consentUrl } = await started({ pageUrl });
    const id = consentUrl.searchParams.get('id')!;
    expect(await t.server.consentRequest('demo', id, 'someone-else')).toEqual({
      ok: false,
      reason: 'wrong_user',
    });
    expect(await t.server.consentRequest('demo', id)).toEqual({ ok: false, reason: 'wrong_user' });
    expect(await t.server.consentRequest('demo', 'no-such-request', USER)).toEqual({
      ok: false,
      reason: 'expired',
    });
    expect(await t.server.consentRequest('nope', id, USER)).toEqual({ ok: false, reason: 'unknown_tenant' });
  });
});

describe('consent render: the built-in renderer is handed to the host renderer, to wrap', () => {
  it('passes the built-in page renderer as the third argument', async () => {
    const { t, consentUrl } = await started({
      render: (view, strings, builtIn) => builtIn(view, strings).replace('<h1>', '<p>Acme banner</p><h1>'),
    });
    const page = await t.server.consentPage(
      get('/tenant/demo/consent', { req: consentUrl.searchParams.get('req')! }, USER),
      'demo',
    );
    expect(page.body).toContain('<p>Acme banner</p><h1>');
    // The rest is the built-in page: its sentences and its form, checked by the same anti-forgery rule.
    expect(page.body).toContain(DEFAULT_CONSENT_STRINGS.scopesIntro);
    expect(page.body).toContain('name="csrf_token"');
  });
});

describe('renderConsentPage: the built-in page as a function a host can call', () => {
  const FORM = {
    action: '/consent',
    fields: { req: 'r1', csrf_token: 't' },
    decisionField: 'decision',
    approveValue: 'approve',
    denyValue: 'deny',
  } as const;

  it('renders a private-use-scheme recipient with its warning', () => {
    const html = renderConsentPage({
      tenant: 'demo',
      serviceName: 'Demo',
      user: { id: 'u1' },
      scopeDescriptions: {},
      requestId: 'r1',
      client: { id: 'c1', name: 'Cursor', type: 'registered' },
      scopes: [],
      redirectUri: 'cursor://anysphere.cursor-mcp/oauth/callback',
      recipient: { kind: 'app', scheme: 'cursor:' },
      form: FORM,
    });
    expect(html).toContain(
      'the application on this device that handles <strong class="recipient-host">cursor:</strong>',
    );
    expect(html).toContain('Any application on this device can register the cursor: scheme.');
    expect(html).toContain('It asks for no specific permissions.');
  });

  it('neutralises control and bidirectional-formatting characters in every client-supplied value', () => {
    const sneaky = [
      '\u202A',
      '\u202B',
      '\u202C',
      '\u202D',
      '\u202E',
      '\u2066',
      '\u2067',
      '\u2068',
      '\u2069',
      '\u200E',
      '\u200F',
      '\u061C',
      '\u0000',
      '\u0007',
      '\u001B',
      '\u007F',
      '\u0085',
      '\u009B',
      '\u2028',
      '\u2029',
    ];
    const all = sneaky.join('');
    const html = renderConsentPage({
      tenant: 'demo',
      serviceName: 'Demo',
      user: { id: 'u1' },
      scopeDescriptions: {},
      requestId: 'r1',
      client: {
        id: `https://docs.example/${all}client.json`,
        name: `Safe App\u202Eexe.live${all}`,
        type: 'metadata_document',
        websiteHost: `site${all}.example`,
        documentHost: `docs${all}.example`,
      },
      scopes: [`read${all}`],
      redirectUri: `https://app.example/cb?x=\u202Egnp.exe${all}`,
      recipient: { kind: 'web', host: `app${all}.example`, unencrypted: false },
      form: FORM,
    });
    for (const character of sneaky) {
      expect(html.includes(character), `U+${character.codePointAt(0)?.toString(16)}`).toBe(false);
    }
    expect(html).toContain('Safe App\uFFFDexe.live');
    expect(html).toContain('https://app.example/cb?x=\uFFFDgnp.exe');
    // Ordinary text, emoji joiners included, is left alone.
    const plain = renderConsentPage({
      tenant: 'demo',
      serviceName: 'Demo',
      user: { id: 'u1' },
      scopeDescriptions: {},
      requestId: 'r1',
      client: { id: 'c1', name: 'Équipe 👩‍💻 日本語 עברית', type: 'registered' },
      scopes: [],
      redirectUri: 'https://app.example/cb',
      recipient: { kind: 'web', host: 'app.example', unencrypted: false },
      form: FORM,
    });
    expect(plain).toContain('Équipe 👩‍💻 日本語 עברית');
  });
});
