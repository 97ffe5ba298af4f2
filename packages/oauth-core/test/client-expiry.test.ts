import { describe, expect, it } from 'vitest';
import {
  authorizeRequest,
  createTestServer,
  get,
  json,
  location,
  obtainCode,
  obtainTokens,
  REDIRECT_URI,
  redeemRefreshToken,
  registerClient,
} from './helpers.js';

const DAY = 86_400_000;
const NINETY_DAYS = 90 * DAY;

describe('bounded storage: dynamic clients unused for 90 days expire', () => {
  it('a registered client gets expiresAt = now + 90 days', async () => {
    const t = await createTestServer();
    const client = await registerClient(t.server, { token_endpoint_auth_method: 'none' });
    const stored = await t.storage.clients.get('demo', client.client_id);
    expect(stored).toMatchObject({ registration: 'dynamic', expiresAt: t.clock.now() + NINETY_DAYS });
  });

  it('an unused client is unknown after 90 days: invalid_client at the token endpoint, an error page at /authorize', async () => {
    const t = await createTestServer();
    const client = await registerClient(t.server, { token_endpoint_auth_method: 'none' });
    const tokens = await obtainTokens(t, client);
    t.clock.advance(NINETY_DAYS);
    expect(json(await redeemRefreshToken(t, client, String(tokens.refresh_token))).error).toBe(
      'invalid_client',
    );
    const authorize = await t.server.authorize(
      get('/tenant/demo/authorize', { client_id: client.client_id, redirect_uri: REDIRECT_URI }, 'user-1'),
      'demo',
    );
    expect(authorize.status).toBe(400);
    expect(authorize.headers.location).toBeUndefined();
  });

  it('use at the token endpoint renews the expiry, so a client in use never expires', async () => {
    const t = await createTestServer();
    const client = await registerClient(t.server, { token_endpoint_auth_method: 'none' });
    let refreshToken = (await obtainTokens(t, client)).refresh_token;
    for (let i = 0; i < 4; i++) {
      t.clock.advance(25 * DAY);
      const result = json(await redeemRefreshToken(t, client, String(refreshToken)));
      expect(result.access_token, `after ${(i + 1) * 25} days`).toBeTypeOf('string');
      refreshToken = result.refresh_token;
    }
    expect((await t.storage.clients.get('demo', client.client_id))?.expiresAt).toBe(
      t.clock.now() + NINETY_DAYS,
    );
  });

  it('use at /authorize by a signed-in user renews the expiry', async () => {
    const t = await createTestServer();
    const client = await registerClient(t.server, { token_endpoint_auth_method: 'none' });
    t.clock.advance(80 * DAY);
    const authorize = await t.server.authorize(authorizeRequest(client.client_id), 'demo');
    expect(location(authorize).pathname).toBe('/tenant/demo/consent');
    expect((await t.storage.clients.get('demo', client.client_id))?.expiresAt).toBe(
      t.clock.now() + NINETY_DAYS,
    );
  });

  it('renews at most about once a day, so the hot path does not write on every request', async () => {
    const t = await createTestServer();
    const client = await registerClient(t.server, { token_endpoint_auth_method: 'none' });
    let touches = 0;
    const touch = t.storage.clients.touch.bind(t.storage.clients);
    t.storage.clients.touch = async (...args) => {
      touches += 1;
      return touch(...args);
    };
    let refreshToken = (await obtainTokens(t, client)).refresh_token;
    for (let i = 0; i < 20; i++) {
      t.clock.advance(60_000);
      refreshToken = json(await redeemRefreshToken(t, client, String(refreshToken))).refresh_token;
    }
    expect(touches).toBe(0);
    t.clock.advance(DAY);
    await redeemRefreshToken(t, client, String(refreshToken));
    expect(touches).toBe(1);
  });

  it('clients stored before expiry existed get one on first use', async () => {
    const t = await createTestServer();
    await t.storage.clients.create('demo', {
      clientId: 'legacy',
      redirectUris: [REDIRECT_URI],
      grantTypes: ['authorization_code', 'refresh_token'],
      responseTypes: ['code'],
      tokenEndpointAuthMethod: 'none',
      createdAt: t.clock.now(),
    });
    await obtainCode(t, 'legacy');
    expect((await t.storage.clients.get('demo', 'legacy'))?.expiresAt).toBe(t.clock.now() + NINETY_DAYS);
  });

  it('unusedClientTtlSeconds sets the lifetime and is validated', async () => {
    const t = await createTestServer({ options: { unusedClientTtlSeconds: 3600 } });
    const client = await registerClient(t.server, { token_endpoint_auth_method: 'none' });
    expect((await t.storage.clients.get('demo', client.client_id))?.expiresAt).toBe(
      t.clock.now() + 3_600_000,
    );
    await expect(createTestServer({ options: { unusedClientTtlSeconds: 0 } })).rejects.toThrow(
      /unusedClientTtlSeconds/,
    );
  });
});
