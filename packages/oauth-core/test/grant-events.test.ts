import { describe, expect, it } from 'vitest';
import { GRANT_TOUCH_INTERVAL_MS } from '../src/grant-retention.js';
import type { AuthEvent } from '../src/storage.js';
import {
  basic,
  createRecordedServer,
  exchangeCode,
  json,
  obtainCode,
  postForm,
  registerClient,
  settled,
  USER,
} from './helpers.js';

/** A user's code flow: the client (confidential), its tokens and the grant they were issued under. */
async function codeFlow(t: Awaited<ReturnType<typeof createRecordedServer>>['t'], userId = USER) {
  const client = await registerClient(t.server, { token_endpoint_auth_method: 'client_secret_basic' });
  const { code, verifier } = await obtainCode(t, client.client_id, { userId });
  const tokens = json(await exchangeCode(t, client, code, verifier));
  const [grant] = await t.storage.grants.list('demo', { clientId: client.client_id, limit: 1 });
  if (grant === undefined) throw new Error('the flow opened no grant');
  return { client, tokens, grant };
}

const grantReasons = (events: readonly AuthEvent[]) =>
  events.filter((event) => event.category === 'grant' || event.category === 'client').map((e) => e.reason);

describe('opening a grant record emits grant.created with its ids', () => {
  it('names the tenant, client, user and grant of a code flow’s new grant, before the token is issued', async () => {
    const { t, hooked } = await createRecordedServer();
    const { client, grant } = await codeFlow(t);
    await settled();
    const created = hooked.filter((event) => event.reason === 'grant.created');
    expect(created).toEqual([
      {
        at: t.clock.now(),
        tenant: 'demo',
        category: 'grant',
        reason: 'grant.created',
        status: 200,
        clientId: client.client_id,
        userId: USER,
        grantId: grant.grantId,
      },
    ]);
    const order = hooked.map((event) => event.reason);
    expect(order.indexOf('grant.created')).toBeLessThan(order.indexOf('token.issued'));
  });
});

describe('grant.used is throttled exactly like the last-used write, never one per request', () => {
  it('emits nothing for uses within the touch interval and one event when lastUsedAt is written', async () => {
    const { t, hooked } = await createRecordedServer();
    const { client, tokens, grant } = await codeFlow(t);
    const touch = t.storage.grants.touch.bind(t.storage.grants);
    let writes = 0;
    t.storage.grants.touch = async (...args) => {
      writes += 1;
      return touch(...args);
    };
    const resource = t.server.protectedResource('demo');
    const bearer = `Bearer ${String(tokens.access_token)}`;
    for (let i = 0; i < 5; i += 1) expect((await resource.verify(bearer)).ok).toBe(true);
    await settled();
    expect(hooked.filter((event) => event.reason === 'grant.used')).toHaveLength(0);

    t.clock.advance(GRANT_TOUCH_INTERVAL_MS);
    for (let i = 0; i < 5; i += 1) expect((await resource.verify(bearer)).ok).toBe(true);
    await settled();
    const used = hooked.filter((event) => event.reason === 'grant.used');
    expect(writes).toBeGreaterThanOrEqual(1);
    expect(used).toHaveLength(writes);
    expect(used[0]).toMatchObject({
      category: 'grant',
      clientId: client.client_id,
      userId: USER,
      grantId: grant.grantId,
    });
    expect((await t.storage.grants.get('demo', grant.grantId))?.lastUsedAt).toBe(t.clock.now());
    const before = used.length;
    for (let i = 0; i < 5; i += 1) expect((await resource.verify(bearer)).ok).toBe(true);
    await settled();
    expect(hooked.filter((event) => event.reason === 'grant.used')).toHaveLength(before);
    expect(writes).toBe(before);
  });

  it('reports a refresh under a stale grant once, with the grant’s ids and no token material', async () => {
    const { t, hooked } = await createRecordedServer();
    const { client, tokens, grant } = await codeFlow(t);
    t.clock.advance(GRANT_TOUCH_INTERVAL_MS + 1);
    const auth = basic(client.client_id, client.client_secret ?? '');
    const refreshed = await t.server.token(
      postForm('/', { grant_type: 'refresh_token', refresh_token: String(tokens.refresh_token) }, auth),
      'demo',
    );
    expect(refreshed.status).toBe(200);
    await settled();
    const used = hooked.filter((event) => event.reason === 'grant.used');
    expect(used).toHaveLength(1);
    expect(used[0]).toMatchObject({ grantId: grant.grantId, clientId: client.client_id, userId: USER });
    expect(JSON.stringify(used)).not.toContain(String(tokens.refresh_token));
  });
});

describe('blocking and unblocking a client are events, and so is every grant the block revokes', () => {
  it('emits client.blocked (category client), then grant.revoked.client_blocked per grant; unblock emits client.unblocked', async () => {
    const { t, hooked } = await createRecordedServer();
    const { client, grant } = await codeFlow(t);
    const other = await codeFlow(t, 'user-2');
    hooked.length = 0;

    await t.server.clients.block('demo', client.client_id);
    expect(await t.server.clients.unblock('demo', client.client_id)).toBe(true);
    expect(await t.server.clients.unblock('demo', client.client_id)).toBe(false);
    await settled();

    expect(hooked).toEqual([
      {
        at: t.clock.now(),
        tenant: 'demo',
        category: 'client',
        reason: 'client.blocked',
        status: 200,
        clientId: client.client_id,
      },
      expect.objectContaining({
        category: 'grant',
        reason: 'grant.revoked.client_blocked',
        clientId: client.client_id,
        userId: USER,
        grantId: grant.grantId,
      }),
      {
        at: t.clock.now(),
        tenant: 'demo',
        category: 'client',
        reason: 'client.unblocked',
        status: 200,
        clientId: client.client_id,
      },
    ]);
    expect(hooked.some((event) => event.clientId === other.client.client_id)).toBe(false);
  });
});

describe('revoking all of a client’s grants emits one grant.revoked.admin per grant revoked', () => {
  it('names each revoked grant with its user, and nothing for grants already revoked or of other clients', async () => {
    const { t, hooked } = await createRecordedServer();
    const first = await codeFlow(t, 'user-a');
    const client = first.client;
    const { code, verifier } = await obtainCode(t, client.client_id, { userId: 'user-b' });
    json(await exchangeCode(t, client, code, verifier));
    const other = await codeFlow(t, 'user-c');
    await t.server.grants.revoke('demo', first.grant.grantId, { userId: 'user-a' });
    hooked.length = 0;

    expect(await t.server.grants.revokeAll('demo', { clientId: client.client_id })).toBe(1);
    await settled();
    expect(grantReasons(hooked)).toEqual(['grant.revoked.admin']);
    expect(hooked[0]).toMatchObject({ clientId: client.client_id, userId: 'user-b', tenant: 'demo' });
    expect(hooked[0]?.grantId).not.toBe(first.grant.grantId);
    expect(hooked.some((event) => event.clientId === other.client.client_id)).toBe(false);
  });
});
