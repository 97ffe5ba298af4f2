import { describe, expect, it } from 'vitest';
import {
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

async function pendingRequest(clientName = 'Example App') {
  const t = await createTestServer();
  const client = await registerClient(t.server, {
    token_endpoint_auth_method: 'none',
    client_name: clientName,
    client_uri: 'https://app.example/about',
  });
  const { challenge } = pkce();
  const result = await t.server.authorize(
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
  const req = location(result).searchParams.get('req') ?? '';
  const decide = (decision: string, userId: string | null = USER, reqValue = req) =>
    t.server.consent(
      postForm('/tenant/demo/consent', { req: reqValue, decision }, {}, userId ?? undefined),
      'demo',
    );
  return { t, client, req, decide };
}

describe('GET /consent renders the consent screen', () => {
  it('shows the client name, its host and each scope, escaped, with a form posting req and decision', async () => {
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
    expect(page.body).toContain('name="decision" value="approve"');
    expect(page.body).toContain('name="decision" value="deny"');
    expect(page.body).toContain('<html lang="en">');
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
