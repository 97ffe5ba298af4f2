import { describe, expect, it } from 'vitest';
import { createAuthorizationServerWithEndpoints } from '../../src/authorization-server.js';
import type { OAuthStorage } from '../../src/index.js';
import { createMemoryStorage } from '../../src/index.js';
import { faultyStorage } from '../faults/faulty-storage.js';
import {
  authorizeRequest,
  BASE_URL,
  basic,
  createTestServer,
  decodePayload,
  exchangeCode,
  get,
  json,
  obtainCode,
  postForm,
  provisionClient,
  redeemRefreshToken,
  registerClient,
  type TestServer,
  USER,
} from '../helpers.js';

type Client = { client_id: string; client_secret?: string };

/** A user's code flow for a public client: the token response and the grant id its access token carries. */
async function authorized(t: TestServer, client: Client, userId = USER) {
  const { code, verifier } = await obtainCode(t, client.client_id, { userId });
  const body = json(await exchangeCode(t, client, code, verifier));
  const accessToken = String(body.access_token);
  return {
    accessToken,
    refreshToken: String(body.refresh_token),
    grantId: String(decodePayload(accessToken).grant_id),
  };
}

/** A server (on `storage` when given) and a public client that has been through one code flow. */
async function setup(storage?: OAuthStorage) {
  const t = await createTestServer(storage ? { options: { storage } } : {});
  const client = await registerClient(t.server, { token_endpoint_auth_method: 'none' });
  return { t, client, ...(await authorized(storage ? { ...t, storage } : t, client)) };
}

const bearer = (t: TestServer, token: string) => t.server.verifyAccessToken('demo', `Bearer ${token}`);

describe('a grant is recorded for each authorization and its tokens carry its id', () => {
  it('a code exchange records the grant with client, kind, scopes, resources, offline access and times', async () => {
    const { t, client, grantId } = await setup();
    const [grant] = await t.server.grants.list('demo', { userId: USER });
    expect(grant).toEqual({
      grantId,
      userId: USER,
      clientId: client.client_id,
      clientType: 'registered',
      kind: 'authorization_code',
      scopes: ['mcp:tools'],
      resources: [],
      offlineAccess: true,
      createdAt: t.clock.now(),
      lastUsedAt: t.clock.now(),
    });
  });

  it('a refreshed access token keeps the grant id', async () => {
    const { t, client, refreshToken, grantId } = await setup();
    const body = json(await redeemRefreshToken(t, client, refreshToken));
    expect(decodePayload(String(body.access_token)).grant_id).toBe(grantId);
    expect(await t.server.grants.list('demo', { clientId: client.client_id })).toHaveLength(1);
  });

  it('a machine client has one grant, which every token it obtains for itself carries', async () => {
    const t = await createTestServer();
    const machine = await provisionClient(t.server, { grantTypes: ['client_credentials'] });
    const obtain = async () =>
      json(
        await t.server.token(
          postForm(
            '/tenant/demo/token',
            { grant_type: 'client_credentials' },
            basic(machine.client_id, String(machine.client_secret)),
          ),
          'demo',
        ),
      );
    const first = decodePayload(String((await obtain()).access_token)).grant_id;
    const second = decodePayload(String((await obtain()).access_token)).grant_id;
    expect(first).toBeTypeOf('string');
    expect(second).toBe(first);
    const grants = await t.server.grants.list('demo', { clientId: machine.client_id });
    expect(grants.map((g) => [g.grantId, g.kind, g.userId])).toEqual([
      [first, 'client_credentials', `client:${machine.client_id}`],
    ]);
  });
});

describe('last used moves with use, written at most once a minute', () => {
  it('an accepted request after a minute advances lastUsedAt; one within the minute writes nothing', async () => {
    const { t, accessToken, grantId } = await setup();
    const created = t.clock.now();
    t.clock.advance(30_000);
    expect((await bearer(t, accessToken)).ok).toBe(true);
    await new Promise((resolve) => setImmediate(resolve));
    expect((await t.storage.grants.get('demo', grantId))?.lastUsedAt).toBe(created);
    t.clock.advance(31_000);
    expect((await bearer(t, accessToken)).ok).toBe(true);
    await new Promise((resolve) => setImmediate(resolve));
    expect((await t.storage.grants.get('demo', grantId))?.lastUsedAt).toBe(created + 61_000);
  });
});

describe('the per-request cost of the grant check is one primary-key read', () => {
  it('a bearer request reads the revoked-token set and the grant once each, and writes nothing within the minute', async () => {
    const faults = faultyStorage(createMemoryStorage());
    const { t, accessToken } = await setup(faults.storage);
    faults.completed.length = 0;
    expect((await bearer(t, accessToken)).ok).toBe(true);
    await new Promise((resolve) => setImmediate(resolve));
    expect([...faults.completed].sort()).toEqual(['grants.get', 'revokedAccessTokens.isRevoked']);
  });
});

describe('a replayed authorization code revokes the grant its first redemption opened', () => {
  it('the access token issued from the code is refused after the replay', async () => {
    const t = await createTestServer();
    const client = await registerClient(t.server, { token_endpoint_auth_method: 'none' });
    const { code, verifier } = await obtainCode(t, client.client_id);
    const accessToken = String(json(await exchangeCode(t, client, code, verifier)).access_token);
    expect(json(await exchangeCode(t, client, code, verifier)).error).toBe('invalid_grant');
    expect((await bearer(t, accessToken)).ok).toBe(false);
    const [grant] = await t.server.grants.list('demo', { includeRevoked: true });
    expect(grant?.revokedReason).toBe('code_replay');
  });
});

describe('a replayed refresh token revokes its grant', () => {
  it('the access tokens of the family are refused once a used refresh token comes back', async () => {
    const { t, client, refreshToken, grantId } = await setup();
    const next = json(await redeemRefreshToken(t, client, refreshToken));
    t.clock.advance(10_000);
    expect(json(await redeemRefreshToken(t, client, refreshToken)).error).toBe('invalid_grant');
    expect((await bearer(t, String(next.access_token))).ok).toBe(false);
    expect((await t.storage.grants.get('demo', grantId))?.revokedReason).toBe('family_reuse');
  });
});

describe('revoking a grant refuses its access tokens at the next request', () => {
  it("a revoked grant's access token is refused at the next request (401 invalid_token)", async () => {
    const { t, accessToken, grantId } = await setup();
    expect((await bearer(t, accessToken)).ok).toBe(true);
    expect((await t.server.grants.revoke('demo', grantId)).ok).toBe(true);
    const check = await bearer(t, accessToken);
    expect(check.ok).toBe(false);
    if (check.ok) return;
    expect(check.result.status).toBe(401);
    expect(check.result.headers['www-authenticate']).toContain('error="invalid_token"');
  });

  it('by a second server instance on the same storage', async () => {
    const storage = createMemoryStorage();
    const t = await createTestServer({ options: { storage } });
    const second = createAuthorizationServerWithEndpoints({
      baseUrl: BASE_URL,
      tenants: { get: (slug) => (slug === 'demo' ? { ...t.tenant } : undefined) },
      storage,
      clock: t.clock,
    });
    const client = await registerClient(t.server, { token_endpoint_auth_method: 'none' });
    const { accessToken, grantId } = await authorized({ ...t, storage }, client);
    expect((await second.verifyAccessToken('demo', `Bearer ${accessToken}`)).ok).toBe(true);
    await t.server.grants.revoke('demo', grantId);
    expect((await second.verifyAccessToken('demo', `Bearer ${accessToken}`)).ok).toBe(false);
  });

  it('introspection answers inactive, and the token verifier refuses it', async () => {
    const { t, client, accessToken, grantId } = await setup();
    await t.server.grants.revoke('demo', grantId);
    const introspected = await t.server.introspect(
      postForm('/tenant/demo/introspect', { token: accessToken, client_id: client.client_id }),
      'demo',
    );
    expect(json(introspected)).toEqual({ active: false });
    await expect(t.server.tokenVerifier('demo').verifyAccessToken(accessToken)).rejects.toThrow(/revoked/);
  });

  it('userinfo refuses it too', async () => {
    const t = await createTestServer();
    const client = await registerClient(t.server, { token_endpoint_auth_method: 'none' });
    const { code, verifier } = await obtainCode(t, client.client_id, { scope: 'openid' });
    const accessToken = String(json(await exchangeCode(t, client, code, verifier)).access_token);
    const userinfo = () =>
      t.server.userinfo(
        { ...get('/tenant/demo/userinfo'), headers: { authorization: `Bearer ${accessToken}` } },
        'demo',
      );
    expect((await userinfo()).status).toBe(200);
    await t.server.grants.revoke('demo', String(decodePayload(accessToken).grant_id));
    expect((await userinfo()).status).toBe(401);
  });

  it("another grant's tokens stay accepted", async () => {
    const { t, client, grantId } = await setup();
    const other = await authorized(t, client, 'user-2');
    await t.server.grants.revoke('demo', grantId);
    expect((await bearer(t, other.accessToken)).ok).toBe(true);
  });
});

describe('revoking a grant kills its refresh family', () => {
  it('the refresh token of a revoked grant gets invalid_grant', async () => {
    const { t, client, refreshToken, grantId } = await setup();
    await t.server.grants.revoke('demo', grantId);
    const result = await redeemRefreshToken(t, client, refreshToken);
    expect(result.status).toBe(400);
    expect(json(result).error).toBe('invalid_grant');
  });
});

describe('revoking a grant removes the remembered consent', () => {
  it('the next authorization asks again', async () => {
    const { t, client, grantId } = await setup();
    const remembered = await t.server.authorize(authorizeRequest(client.client_id), 'demo');
    expect(new URL(String(remembered.headers.location)).searchParams.get('code')).not.toBeNull();
    await t.server.grants.revoke('demo', grantId);
    const asked = await t.server.authorize(authorizeRequest(client.client_id), 'demo');
    expect(new URL(String(asked.headers.location)).pathname).toBe('/tenant/demo/consent');
  });
});

describe('deleting a consent revokes its grants', () => {
  it('revokeAll for a user and client forgets the consent and revokes every grant of that pair', async () => {
    const { t, client, accessToken, refreshToken } = await setup();
    const count = await t.server.grants.revokeAll('demo', { userId: USER, clientId: client.client_id });
    expect(count).toBe(1);
    expect(await t.storage.consents.list('demo', USER, client.client_id, t.clock.now())).toEqual([]);
    expect((await bearer(t, accessToken)).ok).toBe(false);
    expect(json(await redeemRefreshToken(t, client, refreshToken)).error).toBe('invalid_grant');
  });
});

describe('a person sees and ends only their own grants', () => {
  it('a foreign grant id answers like an unknown one, and stays active', async () => {
    const { t, accessToken, grantId } = await setup();
    const foreign = await t.server.grants.revoke('demo', grantId, { userId: 'user-2' });
    const unknown = await t.server.grants.revoke('demo', 'no-such-grant', { userId: 'user-2' });
    expect(foreign).toEqual({ ok: false, reason: 'not_found' });
    expect(unknown).toEqual(foreign);
    expect((await bearer(t, accessToken)).ok).toBe(true);
    expect(await t.server.grants.list('demo', { userId: 'user-2' })).toEqual([]);
  });

  it('a malformed grant id answers not_found too; malformed filters are invalid_request', async () => {
    const { t } = await setup();
    expect(await t.server.grants.revoke('demo', 'a\u0000b', { userId: USER })).toEqual({
      ok: false,
      reason: 'not_found',
    });
    expect(await t.server.grants.revoke('demo', 'x'.repeat(5000))).toEqual({
      ok: false,
      reason: 'not_found',
    });
    await expect(t.server.grants.list('demo', { userId: 'a\u0000b' })).rejects.toMatchObject({
      code: 'invalid_request',
    });
    await expect(t.server.grants.revokeAll('demo', { clientId: '' })).rejects.toMatchObject({
      code: 'invalid_request',
    });
  });

  it("the owner's revocation is recorded with reason user; revoked grants list only when asked", async () => {
    const { t, grantId } = await setup();
    const outcome = await t.server.grants.revoke('demo', grantId, { userId: USER });
    expect(outcome).toMatchObject({ ok: true, grant: { revokedReason: 'user', revokedAt: t.clock.now() } });
    expect(await t.server.grants.list('demo', { userId: USER })).toEqual([]);
    expect(await t.server.grants.list('demo', { userId: USER, includeRevoked: true })).toHaveLength(1);
  });
});

describe("revoking all of a client's grants", () => {
  it('answers the count and refuses the tokens of every user of that client', async () => {
    const { t, client, accessToken } = await setup();
    const other = await authorized(t, client, 'user-2');
    const unrelated = await registerClient(t.server, { token_endpoint_auth_method: 'none' });
    const kept = await authorized(t, unrelated);
    expect(await t.server.grants.revokeAll('demo', { clientId: client.client_id })).toBe(2);
    expect((await bearer(t, accessToken)).ok).toBe(false);
    expect((await bearer(t, other.accessToken)).ok).toBe(false);
    expect((await bearer(t, kept.accessToken)).ok).toBe(true);
    expect(await t.server.grants.revokeAll('demo', { clientId: client.client_id })).toBe(0);
  });

  it('refuses a filter naming neither a user nor a client', async () => {
    const t = await createTestServer();
    await expect(t.server.grants.revokeAll('demo', {})).rejects.toMatchObject({ code: 'invalid_request' });
  });
});

describe('a blocked client is refused everywhere', () => {
  it('a blocked client gets a named refusal at authorize: an error page naming it, no redirect', async () => {
    const { t, client } = await setup();
    await t.server.clients.block('demo', client.client_id);
    const page = await t.server.authorize(authorizeRequest(client.client_id), 'demo');
    expect(page.status).toBe(403);
    expect(page.headers.location).toBeUndefined();
    expect(page.body).toContain(client.client_id);
    expect(page.body).toContain('blocked');
  });

  it('a blocked client gets invalid_grant at refresh', async () => {
    const { t, client, refreshToken } = await setup();
    await t.server.clients.block('demo', client.client_id);
    const result = await redeemRefreshToken(t, client, refreshToken);
    expect(json(result).error).toBe('invalid_grant');
  });

  it('a blocked client gets 401 at the resource, and answers how many grants the block revoked', async () => {
    const { t, client, accessToken } = await setup();
    await authorized(t, client, 'user-2');
    expect(await t.server.clients.block('demo', client.client_id)).toEqual({ revokedGrants: 2 });
    const check = await bearer(t, accessToken);
    expect(check.ok).toBe(false);
    if (!check.ok) expect(check.result.status).toBe(401);
  });

  it('a code issued before the block is refused at the token endpoint', async () => {
    const t = await createTestServer();
    const client = await registerClient(t.server, { token_endpoint_auth_method: 'none' });
    const { code, verifier } = await obtainCode(t, client.client_id);
    await t.server.clients.block('demo', client.client_id);
    const result = await exchangeCode(t, client, code, verifier);
    expect(json(result)).toMatchObject({ error: 'invalid_grant' });
    expect(await t.server.grants.list('demo', { clientId: client.client_id })).toEqual([]);
  });

  it('a blocked machine client gets no token and its tokens are refused', async () => {
    const t = await createTestServer();
    const machine = await provisionClient(t.server, {
      grantTypes: ['client_credentials'],
      scope: 'mcp:tools',
    });
    const request = () =>
      t.server.token(
        postForm(
          '/tenant/demo/token',
          { grant_type: 'client_credentials' },
          basic(machine.client_id, String(machine.client_secret)),
        ),
        'demo',
      );
    const token = String(json(await request()).access_token);
    const verify = () =>
      t.server.verifyAccessToken('demo', `Bearer ${token}`, { allowMachineSubjects: true });
    expect((await verify()).ok).toBe(true);
    await t.server.clients.block('demo', machine.client_id);
    expect((await verify()).ok).toBe(false);
    expect(json(await request()).error).toBe('invalid_grant');
  });

  it('a blocked metadata-document client id is refused without fetching its document', async () => {
    let fetched = 0;
    const t = await createTestServer({
      cimdResolver: {
        resolve: async () => {
          fetched += 1;
          throw new Error('must not be fetched');
        },
      } as never,
    });
    const clientId = 'https://app.example/client.json';
    await t.server.clients.block('demo', clientId);
    const page = await t.server.authorize(authorizeRequest(clientId), 'demo');
    expect(page.status).toBe(403);
    expect(page.body).toContain(clientId);
    expect(fetched).toBe(0);
  });

  it('another client is not affected, and unblocking lets the client authorize again', async () => {
    const { t, client } = await setup();
    const other = await registerClient(t.server, { token_endpoint_auth_method: 'none' });
    await t.server.clients.block('demo', client.client_id);
    await expect(authorized(t, other)).resolves.toMatchObject({ grantId: expect.any(String) });
    expect(await t.server.clients.unblock('demo', client.client_id)).toBe(true);
    expect(await t.server.clients.unblock('demo', client.client_id)).toBe(false);
    const again = await authorized(t, client);
    expect((await bearer(t, again.accessToken)).ok).toBe(true);
  });

  it('refuses a client id with control characters', async () => {
    const t = await createTestServer();
    await expect(t.server.clients.block('demo', 'a\u0000b')).rejects.toMatchObject({
      code: 'invalid_request',
    });
  });
});

describe('the grant check fails closed', () => {
  it('an outage reading the grant is a 503 at the resource, never an accepted token', async () => {
    const faults = faultyStorage(createMemoryStorage());
    const { t, accessToken } = await setup(faults.storage);
    faults.fail('grants.get', 'unavailable');
    const check = await bearer(t, accessToken);
    expect(check.ok).toBe(false);
    if (!check.ok) expect(check.result.status).toBe(503);
  });

  it('an outage reading the block at authorize is a 503 page, never a redirect', async () => {
    const faults = faultyStorage(createMemoryStorage());
    const t = await createTestServer({ options: { storage: faults.storage } });
    const client = await registerClient(t.server, { token_endpoint_auth_method: 'none' });
    faults.fail('clientBlocks.get', 'unavailable');
    const page = await t.server.authorize(authorizeRequest(client.client_id), 'demo');
    expect(page.status).toBe(503);
    expect(page.headers.location).toBeUndefined();
  });
});
