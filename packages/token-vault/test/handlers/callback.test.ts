import { describe, expect, it } from 'vitest';
import { s256Challenge } from '../../src/pkce.js';
import {
  ACME_TOKEN,
  ACME_ASK as ask,
  getRequest,
  loginInBrowser,
  makeHarness,
  mockTokenEndpoint,
  tokenResponse,
} from '../fixtures.js';
import { useProviderServer } from '../provider-server.js';

const server = useProviderServer();

async function started(harness = makeHarness()) {
  return { harness, ...(await loginInBrowser(harness)) };
}

function withQuery(callback: ReturnType<typeof getRequest>, change: (params: URLSearchParams) => void) {
  const params = new URLSearchParams(callback.query);
  change(params);
  return { ...callback, query: params.toString() };
}

async function grantCount(harness: ReturnType<typeof makeHarness>): Promise<number> {
  return (await harness.storage.grants.list({ tenantId: 'tenant-a' })).length;
}

describe('Callback with a valid code and state: tokens exchanged with PKCE, encrypted, stored', () => {
  it('exchanges the code with the verifier and the redirect_uri, then stores the grant', async () => {
    const { harness, callback, authorizationUrl, error } = await started();
    const log = mockTokenEndpoint(server, ACME_TOKEN, () =>
      tokenResponse({ access_token: 'access-1', refresh_token: 'refresh-1', expires_in: 3600 }),
    );
    const result = await harness.broker.callback(callback);
    expect(result.status).toBe(200);
    expect(result.headers['content-type']).toContain('text/html');
    expect(result.body).toContain('<h1>Acme is connected</h1>');
    expect(result.body).toContain('<p class="next-step">Return to your client');
    expect(result.body).toContain('confirm there that you have finished');
    expect(result.body).not.toContain('access-1');
    expect(log).toHaveLength(1);
    const params = log[0]!.params;
    expect(params).toMatchObject({
      grant_type: 'authorization_code',
      code: 'code-1',
      redirect_uri: 'https://host.example/auth/oauth/callback',
      client_id: 'acme-client',
      client_secret: 'acme-secret',
    });
    expect(s256Challenge(params.code_verifier!)).toBe(authorizationUrl.searchParams.get('code_challenge'));
    expect(log[0]!.headers.accept).toBe('application/json');
    expect(await harness.broker.requestToken(ask, harness.context)).toEqual({
      ok: true,
      accessToken: 'access-1',
    });
    // The elicitation link is spent once the grant exists.
    expect((await harness.broker.connect(getRequest(error.elicitationUrl, 'user-1'))).status).toBe(404);
  });

  it('computes tokenExpiresAt from the time the code exchange was sent', async () => {
    const { harness, callback } = await started();
    const sentAt = harness.clock.now();
    mockTokenEndpoint(server, ACME_TOKEN, () => {
      harness.clock.advance(15_000);
      return tokenResponse({ access_token: 'access-1', expires_in: 120 });
    });
    await harness.broker.callback(callback);
    const [grant] = await harness.storage.grants.list({ tenantId: 'tenant-a' });
    expect(grant?.tokenExpiresAt).toBe(sentAt + 120_000);
  });

  it('authenticates with HTTP Basic when the provider asks for client_secret_basic', async () => {
    const harness = makeHarness({
      providers: [
        {
          id: 'acme',
          name: 'Acme',
          authorizationUrl: 'https://acme.example/oauth/authorize',
          tokenUrl: ACME_TOKEN,
          scopes: ['read'],
          clientId: 'acme client',
          clientSecret: 's3cr:t',
          tokenEndpointAuthMethod: 'client_secret_basic',
        },
      ],
    });
    const { callback } = await started(harness);
    const log = mockTokenEndpoint(server, ACME_TOKEN, () => tokenResponse({ access_token: 'access-1' }));
    expect((await harness.broker.callback(callback)).status).toBe(200);
    expect(log[0]!.headers.authorization).toBe(
      `Basic ${Buffer.from('acme%20client:s3cr%3At').toString('base64')}`,
    );
    expect(log[0]!.params.client_secret).toBeUndefined();
  });

  it('accepts a form-encoded token response', async () => {
    const { harness, callback } = await started();
    mockTokenEndpoint(
      server,
      ACME_TOKEN,
      () =>
        new Response('access_token=access-form&expires_in=600&scope=read', {
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
        }),
    );
    expect((await harness.broker.callback(callback)).status).toBe(200);
    expect(await harness.broker.requestToken(ask, harness.context)).toEqual({
      ok: true,
      accessToken: 'access-form',
    });
  });
});

describe('Callback rejections: a clear error page, nothing stored', () => {
  it('a tampered state (one character changed) refers to nothing and is refused', async () => {
    const { harness, callback } = await started();
    const log = mockTokenEndpoint(server, ACME_TOKEN, () => tokenResponse({ access_token: 'access-1' }));
    const tampered = withQuery(callback, (params) => {
      const state = params.get('state')!;
      params.set('state', `${state.slice(0, -1)}${state.endsWith('A') ? 'B' : 'A'}`);
    });
    const result = await harness.broker.callback(tampered);
    expect(result.status).toBe(400);
    expect(result.body).toContain('unknown, already used or expired');
    expect(log).toHaveLength(0);
    expect(await grantCount(harness)).toBe(0);
    // The genuine state was not touched by the forgery.
    expect((await harness.broker.callback(callback)).status).toBe(200);
  });

  it('a state that is not 32 base64url-encoded bytes is refused without a lookup', async () => {
    const { harness, callback } = await started();
    for (const state of ['', 'short', 'a'.repeat(44), `${'a'.repeat(42)}!`, 'eyJ1c2VySWQiOiJ1c2VyLTEifQ']) {
      const result = await harness.broker.callback(
        withQuery(callback, (params) => params.set('state', state)),
      );
      expect(result.status).toBe(400);
    }
    expect(await grantCount(harness)).toBe(0);
  });

  it('a state older than 5 minutes is refused (the pending record expires by the injected clock)', async () => {
    const first = await started();
    first.harness.clock.advance(5 * 60_000);
    const result = await first.harness.broker.callback(first.callback);
    expect(result.status).toBe(400);
    expect(result.body).toContain('five minutes');
    expect(await grantCount(first.harness)).toBe(0);

    const second = await started();
    second.harness.clock.advance(5 * 60_000 - 1);
    mockTokenEndpoint(server, ACME_TOKEN, () => tokenResponse({ access_token: 'access-1' }));
    expect((await second.harness.broker.callback(second.callback)).status).toBe(200);
  });

  it('a replayed state is refused and sends no second code exchange', async () => {
    const { harness, callback } = await started();
    const log = mockTokenEndpoint(server, ACME_TOKEN, () => tokenResponse({ access_token: 'access-1' }));
    expect((await harness.broker.callback(callback)).status).toBe(200);
    await harness.storage.grants.delete({ ...harness.context, provider: 'acme', scopes: ['read'] });
    const replay = await harness.broker.callback(callback);
    expect(replay.status).toBe(400);
    expect(replay.body).toContain('already used');
    expect(log).toHaveLength(1);
    expect(await grantCount(harness)).toBe(0);
  });

  it('of concurrent deliveries of one callback exactly one exchanges the code', async () => {
    const { harness, callback } = await started();
    const log = mockTokenEndpoint(server, ACME_TOKEN, () => tokenResponse({ access_token: 'access-1' }));
    const results = await Promise.all(Array.from({ length: 10 }, () => harness.broker.callback(callback)));
    expect(results.filter((result) => result.status === 200)).toHaveLength(1);
    expect(log).toHaveLength(1);
  });

  it('a provider error= is shown, consumes the state and stores nothing', async () => {
    const { harness, callback } = await started();
    const denied = withQuery(callback, (params) => {
      params.delete('code');
      params.set('error', 'access_denied');
      params.set('error_description', '<script>alert(1)</script>');
    });
    const result = await harness.broker.callback(denied);
    expect(result.status).toBe(400);
    expect(result.body).toContain('access_denied');
    expect(result.body).not.toContain('<script>');
    expect(await grantCount(harness)).toBe(0);
    // The same state cannot be used afterwards.
    expect((await harness.broker.callback(callback)).status).toBe(400);
  });

  it('a refused code exchange (invalid_grant) is an error page', async () => {
    const { harness, callback } = await started();
    mockTokenEndpoint(server, ACME_TOKEN, () => tokenResponse({ error: 'invalid_grant' }, 400));
    const result = await harness.broker.callback(callback);
    expect(result.status).toBe(400);
    expect(result.body).toContain('invalid_grant');
    expect(await grantCount(harness)).toBe(0);
  });

  it('a form-encoded refusal whose error_description spans lines is still read as the provider refusal', async () => {
    const { harness, callback } = await started();
    mockTokenEndpoint(
      server,
      ACME_TOKEN,
      () =>
        new Response('error=bad_verification_code&error_description=line%20one%0Aline%20two', {
          status: 200,
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
        }),
    );
    const result = await harness.broker.callback(callback);
    expect(result.status).toBe(400);
    expect(result.body).toContain('bad_verification_code');
    expect(await grantCount(harness)).toBe(0);
  });

  it('an unreachable token endpoint is a 502 page', async () => {
    const { harness, callback } = await started();
    mockTokenEndpoint(server, ACME_TOKEN, () => new Response('oops', { status: 500 }));
    expect((await harness.broker.callback(callback)).status).toBe(502);
    expect(await grantCount(harness)).toBe(0);
  });

  it('a missing state, a missing code or a repeated parameter is a 400 page', async () => {
    const { harness, callback } = await started();
    expect((await harness.broker.callback({ ...callback, query: 'code=x' })).status).toBe(400);
    expect((await harness.broker.callback(withQuery(callback, (p) => p.delete('code')))).status).toBe(400);
    const { harness: other, callback: again } = await started();
    expect((await other.broker.callback({ ...again, query: `${again.query}&code=second` })).status).toBe(400);
    expect(await grantCount(harness)).toBe(0);
  });

  it('a browser that is not signed in is refused (a forwarded provider link cannot attach another account)', async () => {
    const { harness, callback } = await started();
    const { userId: _asker, ...anonymous } = callback;
    const log = mockTokenEndpoint(server, ACME_TOKEN, () => tokenResponse({ access_token: 'victim-token' }));
    expect((await harness.broker.callback(anonymous)).status).toBe(401);
    expect(log).toHaveLength(0);
    expect(await grantCount(harness)).toBe(0);
    // The state is not spent: the asker signs in and reloads the same callback URL.
    mockTokenEndpoint(server, ACME_TOKEN, () => tokenResponse({ access_token: 'access-1' }));
    expect((await harness.broker.callback(callback)).status).toBe(200);
  });

  it('a signed-in browser user other than the asker is refused, and the state is spent with a security event', async () => {
    const warnings: { fields: Record<string, unknown>; message: string | undefined }[] = [];
    const logger = {
      debug() {},
      info() {},
      error() {},
      warn(fields: Record<string, unknown>, message?: string) {
        warnings.push({ fields, message });
      },
    };
    const { harness, callback } = await started(makeHarness({ logger }));
    const log = mockTokenEndpoint(server, ACME_TOKEN, () => tokenResponse({ access_token: 'victim-token' }));
    const refused = await harness.broker.callback({ ...callback, userId: 'someone-else' });
    expect(refused.status).toBe(403);
    expect(refused.body).toContain('cancelled');
    // The asker's own browser can no longer redeem this provider code through the callback.
    const later = await harness.broker.callback(callback);
    expect(later.status).toBe(400);
    expect(later.body).toContain('already used');
    expect(log).toHaveLength(0);
    expect(await grantCount(harness)).toBe(0);
    const event = warnings.find((w) => w.fields['event'] === 'callback_user_mismatch');
    expect(event?.fields).toEqual({
      event: 'callback_user_mismatch',
      tenant: 'tenant-a',
      elicitationId: expect.any(String),
      provider: 'acme',
      stateConsumed: true,
    });
    // No secret reaches the log: not the state, the code or the user ids.
    const logged = JSON.stringify(warnings);
    const state = new URLSearchParams(callback.query).get('state') ?? '';
    expect(logged).not.toContain(state);
    expect(logged).not.toContain('code-1');
    expect(logged).not.toContain('someone-else');
  });
});

describe('After the callback the host is told the elicitation completed', () => {
  it('calls onAuthorizationComplete with the elicitation and its grant key (no MCP session: clients retry)', async () => {
    const events: unknown[] = [];
    const harness = makeHarness({ onAuthorizationComplete: (event) => void events.push(event) });
    const { error, callback } = await loginInBrowser(harness);
    mockTokenEndpoint(server, ACME_TOKEN, () => tokenResponse({ access_token: 'access-1' }));
    expect((await harness.broker.callback(callback)).status).toBe(200);
    expect(events).toEqual([
      {
        elicitationId: error.elicitationId,
        tenantId: 'tenant-a',
        userId: 'user-1',
        toolModuleId: 'module-1',
        provider: 'acme',
        scopes: ['read'],
      },
    ]);
  });

  it('a failing onAuthorizationComplete does not fail the callback', async () => {
    const harness = makeHarness({
      onAuthorizationComplete: () => {
        throw new Error('queue down');
      },
    });
    const { callback } = await loginInBrowser(harness);
    mockTokenEndpoint(server, ACME_TOKEN, () => tokenResponse({ access_token: 'access-1' }));
    expect((await harness.broker.callback(callback)).status).toBe(200);
  });
});
