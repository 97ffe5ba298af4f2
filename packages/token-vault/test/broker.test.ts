import type { OAuthAsk } from '@keyhold/core';
import { createManualClock } from '@keyhold/core';
import { HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import { createMemoryBrokerStorage, ElicitationRequiredError, TokenVaultError } from '../src/index.js';
import {
  ACME_TOKEN,
  ACME_ASK as ask,
  authorizeInBrowser,
  connectGrant,
  elicitationOf,
  GITHUB_TOKEN,
  makeHarness,
  mockTokenEndpoint,
  T0,
  tokenResponse,
} from './fixtures.js';
import { useProviderServer } from './provider-server.js';

const server = useProviderServer();

const MINUTE = 60_000;

describe('Third-party grant absent: the ask raises an elicitation-required error', () => {
  it('carries elicitationUrl, elicitationId, provider and scopes, and the URL is the host connect step', async () => {
    const { broker, context } = makeHarness();
    const error = await elicitationOf(
      broker.requestToken({ ...ask, message: 'List your Acme files' }, context),
    );
    expect(error.provider).toBe('acme');
    expect(error.scopes).toEqual(['read']);
    expect(error.elicitationId).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(error.message).toBe('List your Acme files');
    const url = new URL(error.elicitationUrl);
    expect(`${url.origin}${url.pathname}`).toBe('https://host.example/auth/oauth/connect');
    expect([...url.searchParams.keys()]).toEqual(['elicitation_id']);
    expect(url.searchParams.get('elicitation_id')).toBe(error.elicitationId);
  });

  it('an ask with no scopes uses the provider default scopes', async () => {
    const { broker, context } = makeHarness();
    const error = await elicitationOf(
      broker.requestToken({ ask: 'oauth', provider: 'acme', scopes: [] }, context),
    );
    expect(error.scopes).toEqual(['profile', 'read']);
  });

  it('the elicitation is an outcome, not a rejection: { ok: false, error }', async () => {
    const { broker, context } = makeHarness();
    const outcome = await broker.requestToken(ask, context);
    expect(outcome.ok).toBe(false);
    expect(!outcome.ok && outcome.error).toBeInstanceOf(ElicitationRequiredError);
  });

  it('an unknown provider or a malformed ask is a programming error', async () => {
    const { broker, context } = makeHarness();
    await expect(broker.requestToken({ ...ask, provider: 'nope' }, context)).rejects.toMatchObject({
      code: 'ERR_UNKNOWN_PROVIDER',
    });
    await expect(
      broker.requestToken({ ask: 'password', provider: 'acme', scopes: [] } as unknown as OAuthAsk, context),
    ).rejects.toMatchObject({ code: 'ERR_INVALID_ASK' });
  });
});

describe('Third-party grant valid, token not expired (5-minute buffer): token returned at once', () => {
  it('returns the stored token without calling the provider', async () => {
    const harness = makeHarness();
    await connectGrant(server, harness);
    // Any request to the provider now fails the test (onUnhandledRequest: error).
    harness.clock.advance(54 * MINUTE);
    expect(await harness.broker.requestToken(ask, harness.context)).toEqual({
      ok: true,
      accessToken: 'access-1',
    });
  });

  it('the grant is keyed on the canonical scope set', async () => {
    const harness = makeHarness();
    await connectGrant(server, harness);
    expect(await harness.broker.requestToken({ ...ask, scopes: [' read', 'read'] }, harness.context)).toEqual(
      { ok: true, accessToken: 'access-1' },
    );
    await elicitationOf(harness.broker.requestToken({ ...ask, scopes: ['read', 'write'] }, harness.context));
    await elicitationOf(harness.broker.requestToken(ask, { ...harness.context, toolModuleId: 'module-2' }));
    await elicitationOf(harness.broker.requestToken(ask, { ...harness.context, userId: 'user-2' }));
  });

  it('stores the tokens encrypted, never in the clear', async () => {
    const harness = makeHarness();
    await connectGrant(server, harness);
    const grants = await harness.storage.grants.list({ tenantId: 'tenant-a' });
    expect(grants).toHaveLength(1);
    const serialised = JSON.stringify(grants);
    expect(serialised).not.toContain('access-1');
    expect(serialised).not.toContain('refresh-1');
    expect(grants[0]?.accessTokenEncrypted).toMatch(/^v1\.k1\./);
    expect(grants[0]?.userId).toBe('user-1');
  });
});

describe('Third-party grant within 5 minutes of expiry with a refresh token: refresh, re-encrypt, store', () => {
  it('refreshes with the refresh token and returns the new access token', async () => {
    const harness = makeHarness();
    await connectGrant(server, harness);
    harness.clock.advance(55 * MINUTE);
    const log = mockTokenEndpoint(server, ACME_TOKEN, () =>
      tokenResponse({ access_token: 'access-2', refresh_token: 'refresh-2', expires_in: 3600 }),
    );
    expect(await harness.broker.requestToken(ask, harness.context)).toEqual({
      ok: true,
      accessToken: 'access-2',
    });
    expect(log).toHaveLength(1);
    expect(log[0]?.params).toEqual({
      grant_type: 'refresh_token',
      refresh_token: 'refresh-1',
      client_id: 'acme-client',
      client_secret: 'acme-secret',
    });
    // The new tokens were stored: the next ask needs no request, and a later refresh uses the rotated token.
    expect(await harness.broker.requestToken(ask, harness.context)).toEqual({
      ok: true,
      accessToken: 'access-2',
    });
    expect(log).toHaveLength(1);
    harness.clock.advance(56 * MINUTE);
    expect(await harness.broker.requestToken(ask, harness.context)).toEqual({
      ok: true,
      accessToken: 'access-2',
    });
    expect(log[1]?.params.refresh_token).toBe('refresh-2');
  });

  it('an expired token is refreshed as well', async () => {
    const harness = makeHarness();
    await connectGrant(server, harness);
    harness.clock.advance(2 * 60 * MINUTE);
    mockTokenEndpoint(server, ACME_TOKEN, () =>
      tokenResponse({ access_token: 'access-2', expires_in: 3600 }),
    );
    expect(await harness.broker.requestToken(ask, harness.context)).toEqual({
      ok: true,
      accessToken: 'access-2',
    });
  });

  it('keeps the old refresh token when the provider does not rotate it', async () => {
    const harness = makeHarness();
    await connectGrant(server, harness);
    harness.clock.advance(56 * MINUTE);
    const log = mockTokenEndpoint(server, ACME_TOKEN, () =>
      tokenResponse({ access_token: `access-${Math.random()}`, expires_in: 3600 }),
    );
    await harness.broker.requestToken(ask, harness.context);
    harness.clock.advance(56 * MINUTE);
    await harness.broker.requestToken(ask, harness.context);
    expect(log.map((entry) => entry.params.refresh_token)).toEqual(['refresh-1', 'refresh-1']);
  });

  it('computes expiresAt from the time the token request was sent, not when the answer came', async () => {
    const harness = makeHarness();
    await connectGrant(server, harness);
    harness.clock.advance(56 * MINUTE);
    const sentAt = harness.clock.now();
    mockTokenEndpoint(server, ACME_TOKEN, () => {
      // The provider takes 20 seconds to answer.
      harness.clock.advance(20_000);
      return tokenResponse({ access_token: 'access-2', expires_in: 3600 });
    });
    await harness.broker.requestToken(ask, harness.context);
    const [grant] = await harness.storage.grants.list({ tenantId: 'tenant-a' });
    expect(grant?.tokenExpiresAt).toBe(sentAt + 3_600_000);
  });

  it('a grant without a refresh token inside the buffer elicits again', async () => {
    const harness = makeHarness();
    await connectGrant(server, harness, { access_token: 'access-1', expires_in: 3600 });
    harness.clock.advance(56 * MINUTE);
    await elicitationOf(harness.broker.requestToken(ask, harness.context));
  });

  it('a grant without expires_in never needs a refresh', async () => {
    const harness = makeHarness();
    await connectGrant(server, harness, { access_token: 'access-1' });
    harness.clock.advance(365 * 24 * 60 * MINUTE);
    expect(await harness.broker.requestToken(ask, harness.context)).toEqual({
      ok: true,
      accessToken: 'access-1',
    });
  });
});

describe('Third-party grant valid, refresh fails: grant invalid, the next ask elicits again', () => {
  it('invalid_grant marks the grant invalid and raises the elicitation', async () => {
    const harness = makeHarness();
    await connectGrant(server, harness);
    harness.clock.advance(56 * MINUTE);
    const log = mockTokenEndpoint(server, ACME_TOKEN, () =>
      tokenResponse({ error: 'invalid_grant', error_description: 'revoked' }, 400),
    );
    await elicitationOf(harness.broker.requestToken(ask, harness.context));
    const [grant] = await harness.storage.grants.list({ tenantId: 'tenant-a' });
    expect(grant?.status).toBe('invalid');
    // The next ask elicits without trying the dead refresh token again.
    await elicitationOf(harness.broker.requestToken(ask, harness.context));
    expect(log).toHaveLength(1);
  });

  it('a GitHub-style error answered with status 200 counts as a refusal', async () => {
    const harness = makeHarness();
    await connectGrant(server, harness);
    harness.clock.advance(56 * MINUTE);
    mockTokenEndpoint(server, ACME_TOKEN, () => tokenResponse({ error: 'bad_refresh_token' }, 200));
    await elicitationOf(harness.broker.requestToken(ask, harness.context));
    expect((await harness.storage.grants.list({ tenantId: 'tenant-a' }))[0]?.status).toBe('invalid');
  });

  it('a provider outage inside the buffer returns the still-valid old token and keeps the grant', async () => {
    const harness = makeHarness();
    await connectGrant(server, harness);
    harness.clock.advance(56 * MINUTE);
    mockTokenEndpoint(server, ACME_TOKEN, () => new HttpResponse('upstream down', { status: 503 }));
    expect(await harness.broker.requestToken(ask, harness.context)).toEqual({
      ok: true,
      accessToken: 'access-1',
    });
    expect((await harness.storage.grants.list({ tenantId: 'tenant-a' }))[0]?.status).toBe('valid');
  });

  it('invalid_client is a configuration outage, not a dead grant: the grant stays valid', async () => {
    const harness = makeHarness();
    await connectGrant(server, harness);
    harness.clock.advance(61 * MINUTE);
    mockTokenEndpoint(server, ACME_TOKEN, () => tokenResponse({ error: 'invalid_client' }, 401));
    await expect(harness.broker.requestToken(ask, harness.context)).rejects.toMatchObject({
      code: 'ERR_PROVIDER_UNAVAILABLE',
    });
    expect((await harness.storage.grants.list({ tenantId: 'tenant-a' }))[0]?.status).toBe('valid');
  });

  it('a provider outage after expiry is an outage error, and the grant survives it', async () => {
    const harness = makeHarness();
    await connectGrant(server, harness);
    harness.clock.advance(61 * MINUTE);
    server.use(http.post(ACME_TOKEN, () => HttpResponse.error()));
    const error = await harness.broker.requestToken(ask, harness.context).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TokenVaultError);
    expect((error as TokenVaultError).code).toBe('ERR_PROVIDER_UNAVAILABLE');
    expect((await harness.storage.grants.list({ tenantId: 'tenant-a' }))[0]?.status).toBe('valid');
  });
});

describe('Refresh is single-flight', () => {
  it('100 concurrent asks on an expiring grant cause exactly one refresh request', async () => {
    const harness = makeHarness();
    await connectGrant(server, harness);
    harness.clock.advance(56 * MINUTE);
    const log = mockTokenEndpoint(server, ACME_TOKEN, async () => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      return tokenResponse({ access_token: 'access-2', refresh_token: 'refresh-2', expires_in: 3600 });
    });
    const outcomes = await Promise.all(
      Array.from({ length: 100 }, () => harness.broker.requestToken(ask, harness.context)),
    );
    expect(outcomes).toEqual(Array(100).fill({ ok: true, accessToken: 'access-2' }));
    expect(log).toHaveLength(1);
  });

  it('across processes: brokers sharing storage and the refresh lock send one refresh request', async () => {
    const storage = createMemoryBrokerStorage();
    const clock = createManualClock(T0);
    const processes = [1, 2, 3, 4].map(() => makeHarness({}, { storage, clock }));
    await connectGrant(server, processes[0]!);
    clock.advance(56 * MINUTE);
    const log = mockTokenEndpoint(server, ACME_TOKEN, async () => {
      await new Promise((resolve) => setTimeout(resolve, 30));
      return tokenResponse({ access_token: 'access-2', refresh_token: 'refresh-2', expires_in: 3600 });
    });
    const outcomes = await Promise.all(
      Array.from({ length: 100 }, (_, i) => {
        const harness = processes[i % processes.length]!;
        return harness.broker.requestToken(ask, harness.context);
      }),
    );
    expect(outcomes).toEqual(Array(100).fill({ ok: true, accessToken: 'access-2' }));
    expect(log).toHaveLength(1);
  });
});

describe('GitHub-style provider', () => {
  it('reads comma-separated scopes from the token response', async () => {
    const harness = makeHarness();
    mockTokenEndpoint(server, GITHUB_TOKEN, () =>
      tokenResponse({ access_token: 'gho_1', token_type: 'bearer', scope: 'user:email,read:user' }),
    );
    const githubAsk: OAuthAsk = { ask: 'oauth', provider: 'github', scopes: [] };
    const error = await elicitationOf(harness.broker.requestToken(githubAsk, harness.context));
    expect(error.scopes).toEqual(['read:user', 'user:email']);
    const { callback, authorizationUrl } = await authorizeInBrowser(harness.broker, error.elicitationUrl);
    expect(authorizationUrl.origin + authorizationUrl.pathname).toBe(
      'https://github.com/login/oauth/authorize',
    );
    expect((await harness.broker.callback(callback)).status).toBe(200);
    const [grant] = await harness.storage.grants.list({ tenantId: 'tenant-a' });
    expect(grant?.grantedScopes).toEqual(['read:user', 'user:email']);
    expect(await harness.broker.requestToken(githubAsk, harness.context)).toEqual({
      ok: true,
      accessToken: 'gho_1',
    });
  });
});
