import { sha256Base64url } from '@keyhold/internal';
import { describe, expect, it } from 'vitest';
import { GRANT_TOUCH_INTERVAL_MS } from '../../src/grant-retention.js';
import {
  createTestServer,
  decodePayload,
  exchangeCode,
  json,
  obtainCode,
  postForm,
  registerClient,
  type TestServerOptions,
} from '../helpers.js';

const MINUTE_MS = 60_000;

/** A public client's code flow on a server with the given lifetimes: its tokens, grant id and expiries. */
async function flow(options: TestServerOptions['options'] = {}) {
  const t = await createTestServer({ options });
  const client = await registerClient(t.server, { token_endpoint_auth_method: 'none' });
  const { code, verifier } = await obtainCode(t, client.client_id);
  const body = json(await exchangeCode(t, client, code, verifier));
  const accessToken = String(body.access_token);
  const claims = decodePayload(accessToken);
  return {
    t,
    client,
    accessToken,
    refreshToken: String(body.refresh_token),
    grantId: String(claims.grant_id),
    accessExpiresAt: Number(claims.exp) * 1000,
    // The store's own record of the refresh token: when it stops working.
    refreshExpiresAt: (await t.storage.refreshTokens.get('demo', sha256Base64url(String(body.refresh_token))))
      ?.expiresAt,
  };
}

describe('a revoked grant’s row outlives every token issued under it, then the sweep may take it', () => {
  it('sets expiresAt to the revocation plus the longest token lifetime, the touch interval and revokedSeconds', async () => {
    const { t, grantId } = await flow({
      accessTokenTtlSeconds: 900,
      refreshTokenTtlSeconds: 3600,
      grantRetention: { revokedSeconds: 60 },
    });
    t.clock.advance(10_000);
    const revokedAt = t.clock.now();
    const outcome = await t.server.grants.revoke('demo', grantId);
    expect(outcome.ok && outcome.grant.expiresAt).toBe(
      revokedAt + 3600_000 + GRANT_TOUCH_INTERVAL_MS + MINUTE_MS,
    );
  });

  it('still refuses the revoked grant’s access token at its last valid second, when the row is not yet due', async () => {
    // Access tokens outliving refresh tokens: the longest lifetime is the access token's.
    const { t, grantId, accessToken, accessExpiresAt } = await flow({
      accessTokenTtlSeconds: 7200,
      refreshTokenTtlSeconds: 3600,
      grantRetention: { revokedSeconds: 1 },
    });
    await t.server.grants.revoke('demo', grantId);
    t.clock.set(accessExpiresAt - 1000);
    const grant = await t.storage.grants.get('demo', grantId);
    expect(grant?.expiresAt).toBeGreaterThan(accessExpiresAt);
    // Had the row been swept, the token would be judged by its jti and expiry alone, and accepted.
    const verified = await t.server.verifyAccessToken('demo', `Bearer ${accessToken}`);
    expect(verified.ok).toBe(false);
  });

  it('keeps the row past the family’s refresh token, whose presentation stays refused', async () => {
    const { t, client, grantId, refreshToken, refreshExpiresAt } = await flow({
      accessTokenTtlSeconds: 300,
      refreshTokenTtlSeconds: 3600,
      grantRetention: { revokedSeconds: 1 },
    });
    if (refreshExpiresAt === undefined) throw new Error('the refresh token was not stored');
    expect(refreshExpiresAt).toBe(t.clock.now() + 3600_000);
    await t.server.grants.revoke('demo', grantId);
    t.clock.set(refreshExpiresAt - 1000);
    expect((await t.storage.grants.get('demo', grantId))?.expiresAt).toBeGreaterThan(refreshExpiresAt);
    const refreshed = await t.server.token(
      postForm('/', {
        grant_type: 'refresh_token',
        refresh_token: refreshToken,
        client_id: client.client_id,
      }),
      'demo',
    );
    expect(refreshed.status).toBe(400);
  });
});

describe('an active grant may be swept only after unusedSeconds without use, counted from its last token’s expiry', () => {
  it('moves expiresAt with each recorded use (the throttled last-used write)', async () => {
    const { t, grantId, accessToken } = await flow({
      accessTokenTtlSeconds: 900,
      refreshTokenTtlSeconds: 3600,
      grantRetention: { unusedSeconds: 600 },
    });
    const due = (usedAt: number) => usedAt + 3600_000 + GRANT_TOUCH_INTERVAL_MS + 600_000;
    expect((await t.storage.grants.get('demo', grantId))?.expiresAt).toBe(due(t.clock.now()));
    t.clock.advance(GRANT_TOUCH_INTERVAL_MS);
    expect((await t.server.verifyAccessToken('demo', `Bearer ${accessToken}`)).ok).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect((await t.storage.grants.get('demo', grantId))?.expiresAt).toBe(due(t.clock.now()));
  });
});

describe('grantRetention is checked once, at creation', () => {
  it('refuses anything but positive whole seconds', async () => {
    for (const grantRetention of [{ unusedSeconds: 0 }, { revokedSeconds: -1 }, { revokedSeconds: 1.5 }]) {
      await expect(createTestServer({ options: { grantRetention } })).rejects.toMatchObject({
        code: 'ERR_INVALID_OPTIONS',
      });
    }
  });
});
