import { describe, expect, it } from 'vitest';
import { DEFAULT_CONSENT_STRINGS } from '../../src/consent-screen.js';
import type { AuthorizationServerOptions, TenantConfig } from '../../src/index.js';
import { createTestServer, get, location, pkce, REDIRECT_URI, registerClient, USER } from '../helpers.js';

/** The consent page of one pending authorization, on a tenant configured as given. */
async function consentPage(
  setup: {
    tenant?: Partial<TenantConfig>;
    options?: Partial<AuthorizationServerOptions>;
    scope?: string;
    redirectUri?: string;
  } = {},
): Promise<string> {
  const t = await createTestServer({
    ...(setup.tenant ? { tenant: setup.tenant } : {}),
    ...(setup.options ? { options: setup.options } : {}),
  });
  const redirectUri = setup.redirectUri ?? REDIRECT_URI;
  const client = await registerClient(t.server, {
    token_endpoint_auth_method: 'none',
    client_name: 'Claude',
    redirect_uris: [redirectUri],
  });
  const { challenge } = pkce();
  const authorize = await t.server.authorize(
    get(
      '/tenant/demo/authorize',
      {
        client_id: client.client_id,
        response_type: 'code',
        redirect_uri: redirectUri,
        code_challenge: challenge,
        code_challenge_method: 'S256',
        state: 'st',
        scope: setup.scope ?? 'openid mcp:tools',
      },
      USER,
    ),
    'demo',
  );
  const page = await t.server.consentPage(
    get('/tenant/demo/consent', { req: location(authorize).searchParams.get('req')! }, USER),
    'demo',
  );
  expect(page.status).toBe(200);
  return page.body ?? '';
}

describe('the consent page names the service that asks: the tenant display name, else its slug', () => {
  it('shows TenantConfig.displayName in the title and the heading', async () => {
    const html = await consentPage({ tenant: { displayName: 'Acme <Docs>' } });
    expect(html).toContain('<title>Allow access to Acme &lt;Docs&gt;</title>');
    expect(html).toContain(
      '<h1>Allow an application to use your <strong class="service-name">Acme &lt;Docs&gt;</strong> account?</h1>',
    );
  });

  it('falls back to the tenant slug when no display name is configured', async () => {
    const html = await consentPage();
    expect(html).toContain('<strong class="service-name">demo</strong>');
  });
});

describe('the consent page names the signed-in person', () => {
  it("shows the host's user id", async () => {
    const html = await consentPage({ tenant: { displayName: 'Acme Docs' } });
    expect(html).toContain(
      'You are signed in to <strong class="service-name">Acme Docs</strong> as <strong class="user-name">user-1</strong>.',
    );
  });

  it('shows the name claim of the userClaims hook instead, when it gives one', async () => {
    const html = await consentPage({
      options: { userClaims: (_tenant, userId) => (userId === USER ? { name: 'Ada Lovelace' } : undefined) },
    });
    expect(html).toContain('as <strong class="user-name">Ada Lovelace</strong>.');
    expect(html).not.toContain('class="user-name">user-1');
  });
});

describe('scopes are described in plain words, the raw names in small print', () => {
  it("uses the tenant's scopeDescriptions, the built-in words for common scopes, and the raw name otherwise", async () => {
    const html = await consentPage({
      tenant: { scopeDescriptions: { 'docs:read': 'read your documents', openid: 'know it is you' } },
      scope: 'openid offline_access mcp:tools docs:read x:raw',
    });
    expect(html).toContain(
      '<li>read your documents<br><small class="scope-name">permission <code>docs:read</code></small></li>',
    );
    // The tenant's words win over the built-in ones.
    expect(html).toContain('<li>know it is you<br>');
    expect(html).toContain(
      '<li>stay connected when you are away<br><small class="scope-name">permission <code>offline_access</code></small></li>',
    );
    expect(html).toContain(`<li>${DEFAULT_CONSENT_STRINGS.scopeMcpTools}<br>`);
    expect(html).toContain('<li><code>x:raw</code></li>');
  });

  it('the built-in words are replaceable consent strings', async () => {
    const html = await consentPage({
      options: { consent: { strings: { scopeOfflineAccess: 'rester connecté' } } },
      scope: 'offline_access',
    });
    expect(html).toContain('<li>rester connecté<br>');
  });
});

describe('a desktop client on this device gets one note instead of two warnings', () => {
  it('a loopback http redirect shows a single note and no warning list', async () => {
    const html = await consentPage({ redirectUri: 'http://127.0.0.1:33418/' });
    expect(html.match(/class="note"/g)).toHaveLength(1);
    expect(html).not.toContain('class="warnings"');
  });
});

describe('the buttons meet touch-target sizes (44 × 44 CSS px)', () => {
  it('the stylesheet gives every button a minimum height and width of 44px', async () => {
    const html = await consentPage();
    expect(html).toMatch(/button\{[^}]*min-height:44px/);
    expect(html).toMatch(/button\{[^}]*min-width:44px/);
  });
});

describe('the unknown-client page tells the person to remove the connection and add it again', () => {
  it('an authorize request from a client the server does not know says so, not "start again"', async () => {
    const t = await createTestServer();
    const { challenge } = pkce();
    const result = await t.server.authorize(
      get(
        '/tenant/demo/authorize',
        {
          client_id: 'forgotten-client',
          response_type: 'code',
          redirect_uri: REDIRECT_URI,
          code_challenge: challenge,
          code_challenge_method: 'S256',
          state: 'st',
        },
        USER,
      ),
      'demo',
    );
    expect(result.status).toBe(400);
    expect(result.body).toContain('remove this connection (or server), then add it again');
    expect(result.body).not.toContain('Return to the application and start again.');
  });
});
