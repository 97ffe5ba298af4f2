import type { Logger } from '@keyhold/core';
import { StorageUnavailableError } from '@keyhold/core';
import { describe, expect, it } from 'vitest';
import { decisionEvent, reasonOf } from '../src/events/decision.js';
import { MAX_PENDING_APPENDS } from '../src/events/emitter.js';
import { AUTH_EVENT_REASONS } from '../src/index.js';
import {
  authorizeRequest,
  basic,
  createRecordedServer,
  createTestServer,
  decideConsent,
  exchangeCode,
  get,
  json,
  location,
  obtainCode,
  obtainTokens,
  postForm,
  provisionClient,
  REDIRECT_URI,
  refuseRefresh,
  registerClient,
  settled,
  USER,
} from './helpers.js';

const silent: Logger = { debug() {}, info() {}, warn() {}, error() {} };

describe('every authorization decision emits one event with its reason', () => {
  it('names register, authorize, consent, token, refresh, introspection and revocation with their ids', async () => {
    const { t, hooked, timeline } = await createRecordedServer();
    const client = await registerClient(t.server, { token_endpoint_auth_method: 'client_secret_basic' });
    const tokens = await obtainTokens(t, client);
    const auth = basic(client.client_id, client.client_secret ?? '');
    const refreshed = await t.server.token(
      postForm('/', { grant_type: 'refresh_token', refresh_token: String(tokens.refresh_token) }, auth),
      'demo',
    );
    expect(refreshed.status).toBe(200);
    await t.server.introspect(postForm('/', { token: String(tokens.access_token) }, auth), 'demo');
    await t.server.revoke(postForm('/', { token: String(tokens.access_token) }, auth), 'demo');
    await t.server.introspect(postForm('/', { token: String(tokens.access_token) }, auth), 'demo');
    await settled();

    const grantId = (await t.storage.grants.list('demo', { limit: 10 }))[0]?.grantId;
    expect(grantId).toBeDefined();
    const reasons = hooked.map((event) => [event.category, event.reason]);
    expect(reasons).toEqual([
      ['registration', 'client.registered'],
      ['authorize', 'authorize.consent_shown'],
      ['consent', 'consent.approved'],
      ['grant', 'grant.created'],
      ['token', 'token.issued'],
      ['token', 'token.issued'],
      ['introspection', 'introspection.active'],
      ['revocation', 'revocation.accepted'],
      ['introspection', 'introspection.inactive'],
    ]);
    const [, , approved, , issued, refresh] = hooked;
    expect(approved).toMatchObject({ clientId: client.client_id, userId: USER, tenant: 'demo', status: 302 });
    expect(issued).toMatchObject({
      clientId: client.client_id,
      userId: USER,
      grantId,
      grantType: 'authorization_code',
    });
    expect(refresh).toMatchObject({
      clientId: client.client_id,
      userId: USER,
      grantId,
      grantType: 'refresh_token',
    });
    expect(await timeline()).toEqual(hooked);
  });

  it('names a denied consent, a bad client secret, a blocked client and a replayed refresh token', async () => {
    const { t, hooked } = await createRecordedServer();
    const client = await registerClient(t.server, { token_endpoint_auth_method: 'client_secret_basic' });
    const start = await t.server.authorize(authorizeRequest(client.client_id), 'demo');
    await decideConsent(t.server, location(start).searchParams.get('req') ?? '', 'deny');
    await t.server.token(
      postForm('/', { grant_type: 'client_credentials' }, basic(client.client_id, 'not-the-secret')),
      'demo',
    );
    const tokens = await obtainTokens(t, client);
    const auth = basic(client.client_id, client.client_secret ?? '');
    const refresh = { grant_type: 'refresh_token', refresh_token: String(tokens.refresh_token) };
    await t.server.token(postForm('/', refresh, auth), 'demo');
    t.clock.advance(60_000);
    await t.server.token(postForm('/', refresh, auth), 'demo');
    await t.storage.clientBlocks.block('demo', { clientId: client.client_id, blockedAt: t.clock.now() });
    await t.server.authorize(get('/', { client_id: client.client_id }, USER), 'demo');
    await settled();

    const by = (reason: string) => hooked.filter((event) => event.reason === reason);
    expect(by('consent.denied')).toHaveLength(1);
    expect(by('consent.denied')[0]).toMatchObject({ clientId: client.client_id, userId: USER });
    expect(by('request.invalid_client')).toHaveLength(1);
    expect(by('request.invalid_client')[0]?.status).toBe(401);
    expect(by('grant.revoked.family_reuse')).toHaveLength(1);
    expect(by('grant.revoked.family_reuse')[0]).toMatchObject({ userId: USER, errorCode: 'invalid_grant' });
    expect(by('client.blocked')).toEqual([
      expect.objectContaining({ category: 'authorize', clientId: client.client_id, status: 403 }),
    ]);
  });

  it('names a refused resource request (revoked grant, wrong token) with the token’s ids, never for a missing token', async () => {
    const { t, hooked } = await createRecordedServer();
    const client = await registerClient(t.server, { token_endpoint_auth_method: 'none' });
    const tokens = await obtainTokens(t, client);
    const resource = t.server.protectedResource('demo');
    expect((await resource.verify(`Bearer ${String(tokens.access_token)}`)).ok).toBe(true);
    const [grant] = await t.storage.grants.list('demo', { limit: 1 });
    await t.server.grants.revoke('demo', grant?.grantId ?? '');
    await settled();
    expect(hooked.at(-1)).toMatchObject({
      category: 'grant',
      reason: 'grant.revoked.admin',
      grantId: grant?.grantId,
      clientId: client.client_id,
      userId: USER,
    });
    hooked.length = 0;
    expect((await resource.verify(`Bearer ${String(tokens.access_token)}`)).ok).toBe(false);
    expect((await resource.verify('Bearer not.a.token')).ok).toBe(false);
    expect((await resource.verify(undefined)).ok).toBe(false);
    expect((await t.server.verifyAccessToken('demo', 'Bearer garbage')).ok).toBe(false);
    await settled();
    expect(hooked.map((event) => [event.category, event.reason, event.status])).toEqual([
      ['resource', 'token.rejected.grant_revoked', 401],
      ['resource', 'token.rejected.invalid', 401],
      ['resource', 'token.rejected.invalid', 401],
    ]);
    expect(hooked[0]).toMatchObject({ clientId: client.client_id, userId: USER, grantId: grant?.grantId });
    expect(hooked[1]?.clientId).toBeUndefined();
  });
});

describe('a reason a handler sets flows to the hook, the metric and the timeline; others are "other"', () => {
  it('keeps a catalogued reason such as id_jag.audience_mismatch and turns an unknown one into other', () => {
    for (const reason of ['id_jag.audience_mismatch', 'workload.subject_not_allowed', 'dpop.replayed']) {
      expect(AUTH_EVENT_REASONS).toContain(reason);
      const event = { reason, error_code: 'invalid_grant', client_id: 'c' };
      expect(reasonOf('token', 400, event)).toBe(reason);
      expect(decisionEvent('token', 400, 'demo', event, reasonOf('token', 400, event), 1)).toMatchObject({
        reason,
        clientId: 'c',
        category: 'token',
      });
    }
    expect(reasonOf('token', 400, { reason: 'made.up' })).toBe('other');
    expect(reasonOf('token', 400, { error_code: 'made_up' })).toBe('other');
  });

  it('counts mcp_auth.events with the same reason the hook got', async () => {
    const { t, hooked } = await createRecordedServer();
    await registerClient(t.server);
    await t.server.token(postForm('/', { grant_type: 'password' }), 'demo');
    await t.server.jwks(get('/'), 'demo');
    expect(t.events.map((event) => event.reason)).toEqual([
      'client.registered',
      'request.unsupported_grant_type',
      undefined,
    ]);
    expect(hooked.map((event) => event.reason)).toEqual([
      'client.registered',
      'request.unsupported_grant_type',
    ]);
  });
});

describe('the hook never changes or delays the response', () => {
  it('answers the same when the hook throws, rejects or never settles, and logs the first two', async () => {
    const hooks = {
      throws: () => {
        throw new Error('hook down');
      },
      rejects: () => Promise.reject(new Error('hook down')),
      hangs: () => new Promise<void>(() => {}),
    };
    for (const [kind, onEvent] of Object.entries(hooks)) {
      const warnings: Record<string, unknown>[] = [];
      const t = await createTestServer({
        options: {
          events: { onEvent },
          logger: { ...silent, warn: (fields) => void warnings.push(fields as Record<string, unknown>) },
        },
      });
      const registered = await t.server.register(
        postForm('/', JSON.stringify({ redirect_uris: [REDIRECT_URI] }), {
          'content-type': 'application/json',
        }),
        'demo',
      );
      expect(registered.status).toBe(201);
      expect((await t.server.token(postForm('/', { grant_type: 'password' }), 'demo')).status).toBe(400);
      await settled();
      const failures = warnings.filter((w) => w.event === 'event_hook_failed');
      expect(failures.map((w) => w.reason)).toEqual(
        kind === 'hangs' ? [] : ['client.registered', 'request.unsupported_grant_type'],
      );
      expect(JSON.stringify(failures)).not.toContain('hook down');
    }
  });
});

describe('a timeline outage is logged and never fails the request', () => {
  it('answers while appends fail or hang, and drops appends beyond the pending bound', async () => {
    const warnings: Record<string, unknown>[] = [];
    let appends = 0;
    const failing = await createTestServer({
      options: {
        logger: { ...silent, warn: (fields) => void warnings.push(fields as Record<string, unknown>) },
      },
    });
    const storage = {
      ...failing.storage,
      events: {
        append: async () => {
          appends += 1;
          throw new StorageUnavailableError('events');
        },
        list: async () => [],
      },
    };
    const t = await createTestServer({
      options: {
        storage,
        logger: { ...silent, warn: (fields) => void warnings.push(fields as Record<string, unknown>) },
      },
    });
    expect((await t.server.token(postForm('/', { grant_type: 'password' }), 'demo')).status).toBe(400);
    await settled();
    expect(appends).toBe(1);
    expect(warnings).toContainEqual(expect.objectContaining({ event: 'event_append_failed' }));

    const hanging = await createTestServer({
      options: {
        storage: {
          ...failing.storage,
          events: { append: () => new Promise<void>(() => {}), list: async () => [] },
        },
        logger: { ...silent, warn: (fields) => void warnings.push(fields as Record<string, unknown>) },
      },
    });
    for (let i = 0; i <= MAX_PENDING_APPENDS; i += 1) {
      expect((await hanging.server.token(postForm('/', { grant_type: 'password' }), 'demo')).status).toBe(
        400,
      );
    }
    expect(warnings.filter((w) => w.event === 'event_dropped')).toHaveLength(1);
  });
});

describe('the timeline answers per client, per user and since a time, within its size bound', () => {
  it('lists a client’s and a user’s events, newest first, and only those at or after since', async () => {
    const { t } = await createRecordedServer();
    const a = await registerClient(t.server, { token_endpoint_auth_method: 'none' });
    t.clock.advance(1000);
    const since = t.clock.now();
    const b = await registerClient(t.server, { token_endpoint_auth_method: 'none' });
    await obtainCode(t, b.client_id, { userId: 'bob' });
    await settled();
    const ofA = await t.server.listEvents('demo', { clientId: a.client_id });
    expect(ofA.map((event) => event.reason)).toEqual(['client.registered']);
    const ofBob = await t.server.listEvents('demo', { userId: 'bob' });
    expect(ofBob.map((event) => event.reason)).toEqual(['consent.approved', 'authorize.consent_shown']);
    const recent = await t.server.listEvents('demo', { since });
    expect(recent.every((event) => event.at >= since)).toBe(true);
    expect(recent.some((event) => event.clientId === a.client_id)).toBe(false);
    await expect(t.server.listEvents('demo', { limit: 0 })).rejects.toThrow(/limit/);
    await expect(t.server.listEvents('demo', { clientId: 'a\u0000b' })).rejects.toThrow(/clientId/);
  });

  it('keeps at most events.maxEventsPerTenant events per tenant, and none older than events.retentionSeconds', async () => {
    const { t } = await createRecordedServer({
      options: { events: { maxEventsPerTenant: 3, maxAnonymousEventsPerTenant: 1, retentionSeconds: 60 } },
    });
    // A client the host provisioned, with its secret: its refusals are its own (the subject bound applies).
    const client = await provisionClient(t.server, {
      grantTypes: ['authorization_code', 'refresh_token'],
      redirectUris: [REDIRECT_URI],
    });
    for (let i = 0; i < 5; i += 1) await refuseRefresh(t, client);
    await settled();
    const kept = await t.server.listEvents('demo', { clientId: client.client_id });
    expect(kept.map((event) => event.reason)).toEqual(Array(3).fill('request.invalid_grant'));
    t.clock.advance(61_000);
    await refuseRefresh(t, client);
    await settled();
    expect(await t.server.listEvents('demo')).toHaveLength(1);
  });

  it('refuses to list without a timeline store and rejects bad bounds at creation', async () => {
    const base = await createTestServer();
    const { events: _events, ...withoutTimeline } = base.storage;
    const t = await createTestServer({ options: { storage: withoutTimeline } });
    await expect(t.server.listEvents('demo')).rejects.toMatchObject({ code: 'ERR_INVALID_OPTIONS' });
    await expect(createTestServer({ options: { events: { maxEventsPerTenant: 0 } } })).rejects.toMatchObject({
      code: 'ERR_INVALID_OPTIONS',
    });
    for (const maxAnonymousEventsPerTenant of [0, -1, 2.5]) {
      await expect(
        createTestServer({ options: { events: { maxAnonymousEventsPerTenant } } }),
      ).rejects.toMatchObject({ code: 'ERR_INVALID_OPTIONS', message: /maxAnonymousEventsPerTenant/ });
    }
  });
});

describe('no event carries token material', () => {
  it('finds no token, code, client secret, assertion or PKCE verifier in hook payloads or stored rows after a full flow', async () => {
    const { t, hooked, timeline } = await createRecordedServer();
    const secrets: string[] = [];
    const client = await registerClient(t.server, { token_endpoint_auth_method: 'client_secret_basic' });
    secrets.push(client.client_secret ?? '');
    const { code, verifier } = await obtainCode(t, client.client_id);
    secrets.push(code, verifier);
    const tokens = json(await exchangeCode(t, client, code, verifier));
    secrets.push(String(tokens.access_token), String(tokens.refresh_token));
    const auth = basic(client.client_id, client.client_secret ?? '');
    const refreshed = json(
      await t.server.token(
        postForm('/', { grant_type: 'refresh_token', refresh_token: String(tokens.refresh_token) }, auth),
        'demo',
      ),
    );
    secrets.push(String(refreshed.access_token), String(refreshed.refresh_token));
    await t.server.introspect(postForm('/', { token: String(refreshed.access_token) }, auth), 'demo');
    await t.server.revoke(postForm('/', { token: String(refreshed.refresh_token) }, auth), 'demo');
    const [grant] = await t.storage.grants.list('demo', { limit: 1 });
    await t.server.grants.revoke('demo', grant?.grantId ?? '');
    await t.server.protectedResource('demo').verify(`Bearer ${String(refreshed.access_token)}`);
    const wrongSecret = 'wrong-secret-0123456789abcdef';
    secrets.push(wrongSecret);
    await t.server.token(
      postForm('/', { grant_type: 'client_credentials' }, basic(client.client_id, wrongSecret)),
      'demo',
    );
    const assertion = 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJlLXRoYXQtaXMtbG9uZw';
    secrets.push(assertion);
    await t.server.token(
      postForm('/', {
        grant_type: 'client_credentials',
        client_id: client.client_id,
        client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
        client_assertion: assertion,
      }),
      'demo',
    );
    await settled();

    const reasons = new Set(hooked.map((event) => event.reason));
    for (const reason of [
      'token.issued',
      'introspection.active',
      'revocation.accepted',
      'token.rejected.grant_revoked',
    ]) {
      expect(reasons).toContain(reason);
    }
    expect(hooked.length).toBeGreaterThanOrEqual(10);
    const serialized = JSON.stringify([hooked, await timeline()]);
    for (const secret of secrets) {
      expect(secret.length).toBeGreaterThan(15);
      expect(serialized).not.toContain(secret);
      // Fragments too: no event holds a token's signature or a hash-sized part of a secret.
      expect(serialized).not.toContain(secret.slice(-16));
    }
  });
});

describe('strangers cannot flush the timeline: events naming no authenticated subject are bounded apart', () => {
  it('keeps a user’s events intact through a flood of anonymous refusals, which stay within events.maxAnonymousEventsPerTenant', async () => {
    const { t } = await createRecordedServer({
      options: { events: { maxEventsPerTenant: 50, maxAnonymousEventsPerTenant: 5 } },
    });
    const client = await registerClient(t.server, { token_endpoint_auth_method: 'client_secret_basic' });
    const { code, verifier } = await obtainCode(t, client.client_id);
    json(await exchangeCode(t, client, code, verifier));
    await settled();
    const before = await t.server.listEvents('demo', { userId: USER });
    expect(before.map((event) => event.reason)).toEqual([
      'token.issued',
      'grant.created',
      'consent.approved',
      'authorize.consent_shown',
    ]);

    const resource = t.server.protectedResource('demo');
    for (let i = 0; i < 40; i += 1) {
      // An unknown client, a bad token at a resource, a malformed request, a public client's bare id.
      await t.server.token(
        postForm('/', { grant_type: 'client_credentials' }, basic(`nobody-${i}`, 'x')),
        'demo',
      );
      await resource.verify(`Bearer forged.${i}.token`);
      await t.server.token(postForm('/', { grant_type: 'password' }), 'demo');
      await t.server.authorize(get('/', { client_id: client.client_id, response_type: 'code' }), 'demo');
    }
    await settled();

    expect(await t.server.listEvents('demo', { userId: USER })).toEqual(before);
    const all = await t.server.listEvents('demo', { limit: 1000 });
    expect(all.filter((event) => event.userId === undefined)).toHaveLength(5);
  });

  it('counts a self-registered client’s refusals as anonymous (anyone may register one), a provisioned client’s as its own', async () => {
    const { t } = await createRecordedServer({
      options: { events: { maxEventsPerTenant: 50, maxAnonymousEventsPerTenant: 2 } },
    });
    const provisioned = await provisionClient(t.server, {
      grantTypes: ['authorization_code', 'refresh_token'],
      redirectUris: [REDIRECT_URI],
    });
    const stranger = await registerClient(t.server, { token_endpoint_auth_method: 'client_secret_basic' });
    for (let i = 0; i < 3; i += 1) await refuseRefresh(t, provisioned);
    for (let i = 0; i < 10; i += 1) await refuseRefresh(t, stranger);
    await settled();
    expect(await t.server.listEvents('demo', { clientId: provisioned.client_id })).toHaveLength(3);
    expect(await t.server.listEvents('demo', { clientId: stranger.client_id })).toHaveLength(2);
  });
});

describe('the catalogue lists every broker.* code of @keyhold/token-vault, so a host can append its events', () => {
  it('holds each code of the token-vault README’s "Events and reason codes v1" table', async () => {
    const { readFile } = await import('node:fs/promises');
    const readme = await readFile(new URL('../../token-vault/README.md', import.meta.url), 'utf8');
    const section = readme.slice(readme.indexOf('## Events and reason codes v1'));
    const codes = [...section.matchAll(/^\| `(broker\.[a-z_.]+)` \|/gm)].map((match) => match[1]);
    expect(codes.length).toBeGreaterThanOrEqual(15);
    for (const code of codes) expect(AUTH_EVENT_REASONS).toContain(code);
  });
});

describe('server.recordEvent adds an event decided elsewhere to the same hook and timeline, within the same bounds', () => {
  const brokered = (at: number, userId?: string) => ({
    at,
    tenant: 'demo',
    category: 'broker' as const,
    reason: 'broker.login_completed',
    status: 200,
    ...(userId === undefined ? {} : { userId }),
  });

  it('reaches the hook and the timeline as given; a reason outside the catalogue is recorded as "other"', async () => {
    const { t, hooked } = await createRecordedServer();
    t.server.recordEvent(brokered(t.clock.now(), USER));
    t.server.recordEvent({ ...brokered(t.clock.now(), USER), reason: 'broker.made_up' });
    await settled();
    expect(hooked.map((event) => event.reason)).toEqual(['broker.login_completed', 'other']);
    const kept = await t.server.listEvents('demo', { userId: USER });
    expect(kept.map((event) => event.reason)).toEqual(['other', 'broker.login_completed']);
  });

  it('counts an event that names no user against the anonymous bound, not against people’s events', async () => {
    const { t } = await createRecordedServer({
      options: { events: { maxEventsPerTenant: 50, maxAnonymousEventsPerTenant: 2 } },
    });
    t.server.recordEvent(brokered(t.clock.now(), USER));
    for (let i = 0; i < 10; i += 1) t.server.recordEvent(brokered(t.clock.now()));
    await settled();
    expect(await t.server.listEvents('demo', { userId: USER })).toHaveLength(1);
    const all = await t.server.listEvents('demo', { limit: 1000 });
    expect(all.filter((event) => event.userId === undefined)).toHaveLength(2);
  });
});
