import { randomBytes } from 'node:crypto';
import { createManualClock } from '@keyhold/core';
import { sha256Base64url } from '@keyhold/internal';
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

describe('the administration over an opened store (what server.clients is built from)', () => {
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

describe('server.clients.provision with a known id and secret: a client the host configuration names', () => {
  const SECRET = 'q3Xh1vKp9sLd2Zr8TnWc5YbFe7GuJm4A-0_Ro6Ik';

  it('stores the given id and only the hash of the given secret; the client authenticates with them', async () => {
    const t = await createTestServer();
    const created = await t.server.clients.provision('demo', {
      clientId: 'keyhold-host',
      clientSecret: SECRET,
      grantTypes: ['client_credentials'],
    });
    expect(created).toMatchObject({ clientId: 'keyhold-host', clientSecret: SECRET });
    expect(created.record.clientSecretHash).toBe(sha256Base64url(SECRET));
    expect(JSON.stringify(await t.storage.clients.get('demo', 'keyhold-host'))).not.toContain(SECRET);
    const token = await t.server.token(
      postForm('/tenant/demo/token', { grant_type: 'client_credentials' }, basic('keyhold-host', SECRET)),
      'demo',
    );
    expect(token.status).toBe(200);
  });

  it('a known id without a secret gets a generated one', async () => {
    const t = await createTestServer();
    const created = await t.server.clients.provision('demo', {
      clientId: 'reports',
      grantTypes: ['client_credentials'],
    });
    expect(created.clientSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});

describe('a known id is provisioned once: the same client again is answered, another one is a conflict', () => {
  const SECRET = 'q3Xh1vKp9sLd2Zr8TnWc5YbFe7GuJm4A-0_Ro6Ik';
  const input = {
    clientId: 'keyhold-host',
    clientSecret: SECRET,
    clientName: 'Keyhold example host',
    redirectUris: ['https://host.example/auth/oauth/callback'],
    grantTypes: ['authorization_code', 'refresh_token'],
    scope: 'openid profile',
  };

  it('instances provisioning the same client at once all succeed, and one record is stored', async () => {
    const t = await createTestServer();
    const results = await Promise.all([1, 2, 3].map(() => t.server.clients.provision('demo', input)));
    const first = results[0]!.record;
    for (const result of results) expect(result.record).toEqual(first);
    t.clock.advance(60_000);
    // A later start provisions it again: answered as stored, createdAt unchanged.
    expect((await t.server.clients.provision('demo', input)).record.createdAt).toBe(first.createdAt);
    expect((await t.server.clients.list('demo')).map((client) => client.clientId)).toEqual(['keyhold-host']);
  });

  it('an id held by a client with another secret or registration throws ERR_CLIENT_EXISTS, storing nothing', async () => {
    const t = await createTestServer();
    await t.server.clients.provision('demo', input);
    for (const changed of [
      { ...input, clientSecret: `${SECRET}-rotated` },
      { ...input, redirectUris: ['https://host.example/other/callback'] },
      { ...input, scope: 'openid' },
      { clientId: 'keyhold-host', grantTypes: ['client_credentials'] },
    ]) {
      const refused = await t.server.clients.provision('demo', changed).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(OAuthCoreError);
      expect(refused).toMatchObject({ code: 'ERR_CLIENT_EXISTS' });
      expect(String((refused as Error).message)).toMatch(/already has a client "keyhold-host"/);
      expect(String((refused as Error).message)).not.toContain(SECRET);
    }
    expect((await t.storage.clients.get('demo', 'keyhold-host'))?.clientSecretHash).toBe(
      sha256Base64url(SECRET),
    );
  });

  it('removing the stored client lets the changed one in (how a host replaces a stale client)', async () => {
    const t = await createTestServer();
    await t.server.clients.provision('demo', input);
    const rotated = { ...input, clientSecret: `${SECRET}-rotated` };
    expect(await t.server.clients.remove('demo', 'keyhold-host')).toBe(true);
    const replaced = await t.server.clients.provision('demo', rotated);
    expect(replaced.record.clientSecretHash).toBe(sha256Base64url(rotated.clientSecret));
  });

  it('a dynamically registered client is never taken for a provisioned one', async () => {
    const t = await createTestServer();
    const registered = json(
      await t.server.register(
        {
          method: 'POST',
          path: '/tenant/demo/register',
          query: '',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            redirect_uris: ['https://app.example/cb'],
            token_endpoint_auth_method: 'none',
          }),
        },
        'demo',
      ),
    );
    await expect(
      t.server.clients.provision('demo', {
        clientId: String(registered.client_id),
        redirectUris: ['https://app.example/cb'],
        grantTypes: ['authorization_code', 'refresh_token'],
        tokenEndpointAuthMethod: 'none',
      }),
    ).rejects.toMatchObject({ code: 'ERR_CLIENT_EXISTS' });
  });
});

describe('a known client id follows the id rules: URL-safe, at most 128 characters, no leading dash', () => {
  it.each([
    ['empty', ''],
    ['starting with a dash', '-rf'],
    ['a URL (a metadata-document id)', 'https://app.example/client.json'],
    ['with a space', 'my client'],
    ['with a slash', 'a/b'],
    ['longer than 128 characters', 'a'.repeat(129)],
  ])('refuses an id %s with invalid_client_metadata, storing nothing', async (_name, clientId) => {
    const t = await createTestServer();
    await expect(
      t.server.clients.provision('demo', { clientId, grantTypes: ['client_credentials'] }),
    ).rejects.toMatchObject({ code: 'invalid_client_metadata', message: expect.stringMatching(/clientId/) });
    expect(await t.server.clients.list('demo')).toEqual([]);
  });

  it.each([['keyhold-host'], ['svc.reports~v2'], ['_internal'], ['a'.repeat(128)]])(
    'accepts %s',
    async (clientId) => {
      const t = await createTestServer();
      const created = await t.server.clients.provision('demo', {
        clientId,
        grantTypes: ['client_credentials'],
      });
      expect(created.clientId).toBe(clientId);
    },
  );
});

describe('a known client secret has a floor: 32 to 512 visible characters, not repetitive', () => {
  it.each([
    ['shorter than 32 characters', 'from-the-secret-manager'],
    ['one character repeated', 'a'.repeat(64)],
    ['two characters alternating', 'ab'.repeat(32)],
    ['holding spaces', 'correct horse battery staple and then some more words'],
    ['holding a non-ASCII character', `${'Zr8TnWc5YbFe7GuJm4A0Ro6Ik3Xh1vKp9sLd2'}é`],
    ['longer than 512 characters', randomBytes(400).toString('base64url')],
  ])('refuses a secret %s with invalid_client_metadata, never echoing it', async (_name, clientSecret) => {
    const t = await createTestServer();
    const refused = await t.server.clients
      .provision('demo', { clientId: 'reports', clientSecret, grantTypes: ['client_credentials'] })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(OAuthError);
    expect(refused).toMatchObject({
      code: 'invalid_client_metadata',
      message: expect.stringMatching(/clientSecret/),
    });
    expect(String((refused as Error).message)).not.toContain(clientSecret);
    expect(await t.server.clients.list('demo')).toEqual([]);
  });

  it('accepts random secrets: 16 bytes as hex, 32 bytes as base64url', async () => {
    const t = await createTestServer();
    for (const [index, clientSecret] of [
      randomBytes(16).toString('hex'),
      randomBytes(32).toString('base64url'),
    ].entries()) {
      const created = await t.server.clients.provision('demo', {
        clientId: `client-${index}`,
        clientSecret,
        grantTypes: ['client_credentials'],
      });
      expect(created.clientSecret).toBe(clientSecret);
    }
  });

  it('refuses a secret for a client that authenticates without one (none, private_key_jwt)', async () => {
    const t = await createTestServer();
    for (const tokenEndpointAuthMethod of ['none', 'private_key_jwt'] as const) {
      await expect(
        t.server.clients.provision('demo', {
          clientId: 'app',
          clientSecret: 'q3Xh1vKp9sLd2Zr8TnWc5YbFe7GuJm4A-0_Ro6Ik',
          tokenEndpointAuthMethod,
          grantTypes: ['authorization_code'],
          redirectUris: ['https://app.example/cb'],
          ...(tokenEndpointAuthMethod === 'private_key_jwt'
            ? { jwksUri: 'https://app.example/jwks.json' }
            : {}),
        }),
      ).rejects.toMatchObject({
        code: 'invalid_client_metadata',
        message: expect.stringMatching(/client secret goes with/),
      });
    }
  });
});
