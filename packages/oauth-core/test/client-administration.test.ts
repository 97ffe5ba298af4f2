import { createManualClock, sha256Base64url } from '@keyhold/core';
import { describe, expect, it } from 'vitest';
import { createClientAdministration } from '../src/client-administration.js';
import { TOKEN_EXCHANGE_GRANT } from '../src/grants/token-exchange.js';
import { createMemoryStorage, OAuthCoreError, OAuthError } from '../src/index.js';
import { basic, createTestServer, json, postForm } from './helpers.js';

describe('server.clients: clients provisioned by the host', () => {
  it('provision returns the id, the secret once and the stored record (hash only); the client may use client_credentials', async () => {
    const t = await createTestServer();
    const created = await t.server.clients.provision('demo', {
      grantTypes: ['client_credentials'],
      clientName: 'nightly-report',
      scope: 'reports:read',
    });
    expect(created.record).toEqual({
      clientId: created.clientId,
      clientName: 'nightly-report',
      redirectUris: [],
      grantTypes: ['client_credentials'],
      responseTypes: [],
      tokenEndpointAuthMethod: 'client_secret_basic',
      clientSecretHash: sha256Base64url(String(created.clientSecret)),
      scope: 'reports:read',
      createdAt: t.clock.now(),
      registration: 'provisioned',
      applicationType: 'web',
    });
    expect(await t.storage.clients.get('demo', created.clientId)).toEqual(created.record);
    const token = await t.server.token(
      postForm(
        '/tenant/demo/token',
        { grant_type: 'client_credentials' },
        basic(created.clientId, String(created.clientSecret)),
      ),
      'demo',
    );
    expect(token.status).toBe(200);
  });

  it('provisioned clients never expire, however long unused', async () => {
    const t = await createTestServer();
    const created = await t.server.clients.provision('demo', { grantTypes: ['client_credentials'] });
    expect('expiresAt' in created.record).toBe(false);
    t.clock.advance(400 * 86_400_000);
    const token = await t.server.token(
      postForm(
        '/tenant/demo/token',
        { grant_type: 'client_credentials' },
        basic(created.clientId, String(created.clientSecret)),
      ),
      'demo',
    );
    expect(token.status).toBe(200);
    expect('expiresAt' in ((await t.storage.clients.get('demo', created.clientId)) ?? {})).toBe(false);
  });

  it('records token exchange audiences; a public client gets no secret', async () => {
    const t = await createTestServer();
    const exchanger = await t.server.clients.provision('demo', {
      grantTypes: [TOKEN_EXCHANGE_GRANT],
      tokenExchangeAudiences: ['https://files.example', 'https://files.example'],
    });
    expect(exchanger.record.tokenExchangeAudiences).toEqual(['https://files.example']);
    const app = await t.server.clients.provision('demo', {
      grantTypes: ['authorization_code', 'refresh_token'],
      redirectUris: ['http://127.0.0.1/cb'],
      tokenEndpointAuthMethod: 'none',
    });
    expect(app.clientSecret).toBeUndefined();
    expect(app.record.responseTypes).toEqual(['code']);
  });

  it.each([
    [
      'a public client_credentials client',
      { grantTypes: ['client_credentials'], tokenEndpointAuthMethod: 'none' as const },
    ],
    ['an unknown grant type', { grantTypes: ['password'] }],
    ['no grant type', { grantTypes: [] }],
    [
      'audiences without the token-exchange grant',
      { grantTypes: ['client_credentials'], tokenExchangeAudiences: ['x'] },
    ],
    ['an audience with a space', { grantTypes: [TOKEN_EXCHANGE_GRANT], tokenExchangeAudiences: ['a b'] }],
    ['a code client without redirect URIs', { grantTypes: ['authorization_code'] }],
  ])('refuses %s with an OAuthError', async (_, input) => {
    const t = await createTestServer();
    await expect(t.server.clients.provision('demo', input)).rejects.toBeInstanceOf(OAuthError);
    expect(await t.server.clients.list('demo')).toEqual([]);
  });

  it('checks the scope against the tenant offer and refuses an unknown tenant', async () => {
    const t = await createTestServer({ tenant: { scopesSupported: ['mcp'] } });
    await expect(
      t.server.clients.provision('demo', { grantTypes: ['client_credentials'], scope: 'admin' }),
    ).rejects.toMatchObject({ code: 'invalid_client_metadata' });
    await expect(
      t.server.clients.provision('nope', { grantTypes: ['client_credentials'] }),
    ).rejects.toMatchObject({ code: 'invalid_request', status: 404 });
  });

  it('list pages through clients of both origins; remove deletes and answers whether it existed', async () => {
    const t = await createTestServer();
    const provisioned = await t.server.clients.provision('demo', { grantTypes: ['client_credentials'] });
    const registered = json(
      await t.server.register(
        {
          method: 'POST',
          path: '/tenant/demo/register',
          query: '',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ redirect_uris: ['https://app.example/cb'] }),
        },
        'demo',
      ),
    );
    const listed = await t.server.clients.list('demo');
    expect(listed.map((c) => c.clientId).sort()).toEqual(
      [provisioned.clientId, String(registered.client_id)].sort(),
    );
    expect(listed.find((c) => c.clientId === registered.client_id)?.registration).toBe('dynamic');
    expect(await t.server.clients.list('demo', { limit: 1 })).toHaveLength(1);
    await expect(t.server.clients.list('demo', { limit: 0 })).rejects.toMatchObject({
      code: 'invalid_request',
    });
    expect(await t.server.clients.remove('demo', provisioned.clientId)).toBe(true);
    expect(await t.server.clients.remove('demo', provisioned.clientId)).toBe(false);
    expect(await t.server.clients.get('demo', provisioned.clientId)).toBeUndefined();
    const token = await t.server.token(
      postForm(
        '/tenant/demo/token',
        { grant_type: 'client_credentials' },
        basic(provisioned.clientId, String(provisioned.clientSecret)),
      ),
      'demo',
    );
    expect(json(token).error).toBe('invalid_client');
  });
});

describe('createClientAdministration: the same API on an opened store (for a CLI)', () => {
  it('works with just the storage and a clock; a malformed tenant slug is refused', async () => {
    const storage = createMemoryStorage();
    const clock = createManualClock(1_767_225_600_000);
    const admin = createClientAdministration({ storage, clock });
    const created = await admin.provision('demo', { grantTypes: ['client_credentials'] });
    expect(created.record.createdAt).toBe(clock.now());
    expect((await admin.list('demo')).map((c) => c.clientId)).toEqual([created.clientId]);
    await expect(admin.list('../etc')).rejects.toMatchObject({ code: 'invalid_request' });
  });

  it('refuses a storage without clients.list at creation', () => {
    const storage = createMemoryStorage();
    const { list: _, ...clients } = storage.clients;
    expect(() => createClientAdministration({ storage: { ...storage, clients: clients as never } })).toThrow(
      OAuthCoreError,
    );
  });
});
