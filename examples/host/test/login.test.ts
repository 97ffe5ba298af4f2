import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HostProcess, startHost } from './host-process.js';
import { loadConsentForm, postConsent, redeemCode } from './oauth-client.js';

let host: HostProcess;
beforeAll(async () => {
  host = await startHost({ SVC_SINGLE_USER: '0' });
});
afterAll(async () => {
  await host?.stop({ removeData: true });
});

const REDIRECT = 'http://127.0.0.1:9/cb';

async function authorizationRequest(): Promise<{ url: URL; verifier: string; clientId: string }> {
  const registered = (await (
    await fetch(`${host.url}/tenant/demo/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'login e2e',
        redirect_uris: [REDIRECT],
        token_endpoint_auth_method: 'none',
      }),
    })
  ).json()) as { client_id: string };
  const verifier = randomBytes(32).toString('base64url');
  const url = new URL(`${host.url}/tenant/demo/authorize`);
  url.search = new URLSearchParams({
    client_id: registered.client_id,
    response_type: 'code',
    redirect_uri: REDIRECT,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    scope: 'mcp:tools',
    state: 'st',
  }).toString();
  return { url, verifier, clientId: registered.client_id };
}

async function signIn(user: string, returnTo: string): Promise<{ cookie: string; location: string }> {
  const response = await fetch(`${host.url}/tenant/demo/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ user, return_to: returnTo }).toString(),
  });
  expect(response.status).toBe(302);
  return {
    cookie: response.headers.get('set-cookie')!.split(';')[0]!,
    location: response.headers.get('location')!,
  };
}

/** The whole browser flow for one user, ending in an access token. */
async function tokenFor(user: string): Promise<string> {
  const { url, verifier, clientId } = await authorizationRequest();
  const { cookie, location } = await signIn(user, url.href);
  const consent = new URL(
    (await fetch(new URL(location, host.url), { redirect: 'manual', headers: { cookie } })).headers.get(
      'location',
    )!,
  );
  const approved = await postConsent(consent, await loadConsentForm(consent, cookie));
  const code = new URL(approved.headers.get('location')!).searchParams.get('code')!;
  const response = await redeemCode(host.url, { code, verifier, redirectUri: REDIRECT, clientId: clientId });
  return ((await response.json()) as { access_token: string }).access_token;
}

describe('MCP requests act for the token holder only (real SDK transport)', () => {
  it('the Mcp-Session-Id is no credential: without a token it gets 401, and another user is served as themselves', async () => {
    const [alice, bob] = [await tokenFor('alice'), await tokenFor('bob')];
    const mcp = (token: string, body: unknown, session?: string) =>
      fetch(`${host.url}/tenant/demo/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-11-25',
          ...(session ? { 'mcp-session-id': session } : {}),
        },
        body: JSON.stringify(body),
      });
    const opened = await mcp(alice, {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'alice', version: '1' },
      },
    });
    const session = opened.headers.get('mcp-session-id')!;
    await opened.text();
    expect(session).toBeTypeOf('string');
    const list = { jsonrpc: '2.0', id: 2, method: 'tools/list' };
    expect((await mcp(alice, list, session)).status).toBe(200);
    // Stateless serving: the id carries only a signed capability bit bound to Alice, never her identity.
    const asBob = await mcp(bob, list, session);
    expect(asBob.status).toBe(200);
    await asBob.text();
    const anonymous = await fetch(`${host.url}/tenant/demo/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': session,
      },
      body: JSON.stringify(list),
    });
    expect(anonymous.status).toBe(401);
  });
});

describe('multi-user mode (SVC_SINGLE_USER unset): the development login and its signed session cookie', () => {
  it('sends an anonymous /authorize to the tenant-scoped login page with return_to', async () => {
    const { url } = await authorizationRequest();
    const response = await fetch(url, { redirect: 'manual' });
    expect(response.status).toBe(302);
    const login = new URL(response.headers.get('location')!);
    expect(`${login.origin}${login.pathname}`).toBe(`${host.url}/tenant/demo/login`);
    expect(login.searchParams.get('return_to')).toBe(url.href);
    const page = await fetch(login);
    const html = await page.text();
    expect(html).toContain('For development only');
    expect(page.headers.get('x-frame-options')).toBe('DENY');
  });

  it('signs the user in, and the code it leads to yields a token for that user', async () => {
    const { url, verifier, clientId } = await authorizationRequest();
    const { cookie, location } = await signIn('alice', url.href);
    expect(location).toBe(url.href);
    const toConsent = await fetch(new URL(location, host.url), { redirect: 'manual', headers: { cookie } });
    const consent = new URL(toConsent.headers.get('location')!);
    expect(consent.pathname).toBe('/tenant/demo/consent');
    const form = await loadConsentForm(consent, cookie);
    const consentCookie = form.cookie.split('; ').find((c) => c.startsWith('keyhold_consent='))!;
    const approve = (session: string) =>
      postConsent(consent, { cookie: `${session}; ${consentCookie}`, csrfToken: form.csrfToken });
    // Only the user who started the request may decide it (even holding that browser's form token).
    const mallory = await signIn('mallory', '/');
    expect((await approve(mallory.cookie)).status).toBe(403);
    // A form posted without the page's token is refused too, and the request stays.
    expect((await postConsent(consent, { cookie })).status).toBe(403);
    const approved = await approve(cookie);
    const code = new URL(approved.headers.get('location')!).searchParams.get('code')!;
    const tokens = (await (
      await redeemCode(host.url, { code, verifier, redirectUri: REDIRECT, clientId: clientId })
    ).json()) as { access_token: string };
    const claims = JSON.parse(Buffer.from(tokens.access_token.split('.')[1]!, 'base64url').toString()) as {
      sub: string;
    };
    expect(claims.sub).toBe('alice');
  });

  it("refuses a login POST from another origin (login CSRF), and accepts the host's own", async () => {
    const post = (origin: string) =>
      fetch(`${host.url}/tenant/demo/login`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin },
        body: new URLSearchParams({ user: 'mallory', return_to: '/' }).toString(),
      });
    const refused = await post('https://evil.example');
    expect(refused.status).toBe(403);
    expect(refused.headers.get('set-cookie')).toBeNull();
    expect(await refused.text()).toContain('cross-origin request refused');
    expect((await post('null')).status).toBe(403);
    expect((await post(host.url)).status).toBe(302);
    // The page asks for same-origin referrers, so browsers send its real Origin with the form.
    expect((await fetch(`${host.url}/tenant/demo/login`)).headers.get('referrer-policy')).toBe('same-origin');
  });

  it('ignores a tampered session cookie', async () => {
    const { url } = await authorizationRequest();
    const { cookie } = await signIn('alice', '/');
    const [name, value] = cookie.split('=') as [string, string];
    const forged = `${name}=${Buffer.from('bob').toString('base64url')}${value.slice(value.indexOf('.'))}`;
    const response = await fetch(url, { redirect: 'manual', headers: { cookie: forged } });
    expect(new URL(response.headers.get('location')!).pathname).toBe('/tenant/demo/login');
  });

  it('never redirects off-site after login, and refuses a malformed user id', async () => {
    expect((await signIn('alice', 'https://evil.example/steal')).location).toBe('/');
    // `/..//evil.example` normalises to the path `//evil.example`, which a browser reads as another host.
    for (const returnTo of ['/..//evil.example', '/.//evil.example/x', '/%2e%2e//evil.example']) {
      const { location } = await signIn('alice', returnTo);
      expect(new URL(location, host.url).origin, returnTo).toBe(new URL(host.url).origin);
    }
    const bad = await fetch(`${host.url}/tenant/demo/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'user=%3Cscript%3E&return_to=%2F',
    });
    expect(bad.status).toBe(400);
    expect(await bad.text()).not.toContain('<script>');
  });
});

describe('multi-user mode: the connected-apps page is each signed-in person’s own', () => {
  it('sends an anonymous visitor to the login page, and then lists only that person’s apps', async () => {
    const page = `${host.url}/tenant/demo/connected-apps`;
    const anonymous = await fetch(page, { redirect: 'manual' });
    expect(anonymous.status).toBe(303);
    const login = new URL(anonymous.headers.get('location')!);
    expect(`${login.origin}${login.pathname}`).toBe(`${host.url}/tenant/demo/login`);
    expect(login.searchParams.get('return_to')).toBe(page);
    const carolToken = await tokenFor('carol');
    await tokenFor('dave');
    const { cookie, location } = await signIn('carol', page);
    expect(location).toBe(page);
    const html = await (await fetch(page, { headers: { cookie } })).text();
    expect(html).toContain('<strong class="user-name">carol</strong>');
    const grantId = (
      JSON.parse(Buffer.from(carolToken.split('.')[1]!, 'base64url').toString()) as { grant_id: string }
    ).grant_id;
    // Carol's one grant, and not Dave's.
    expect([...html.matchAll(/name="grant_id" value="([^"]+)"/g)].map((match) => match[1])).toEqual([
      grantId,
    ]);
  });
});
