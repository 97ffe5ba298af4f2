import { sha256Base64url } from '@keyhold/internal';
import { describe, expect, it } from 'vitest';
import {
  createTestServer,
  decodePayload,
  exchangeCode,
  json,
  obtainCode,
  postForm,
  registerClient,
} from '../helpers.js';

async function setup() {
  const t = await createTestServer();
  const client = await registerClient(t.server, { token_endpoint_auth_method: 'none' });
  const { code, verifier } = await obtainCode(t, client.client_id, { scope: 'openid mcp files' });
  const first = json(await exchangeCode(t, client, code, verifier));
  const refresh = (token: string, extra: Record<string, string> = {}) =>
    t.server.token(
      postForm('/tenant/demo/token', {
        grant_type: 'refresh_token',
        refresh_token: token,
        client_id: client.client_id,
        ...extra,
      }),
      'demo',
    );
  return { t, client, first, refresh, token: String(first.refresh_token) };
}

describe('POST /token refresh_token: active → consumed (rotation)', () => {
  it('issues a new access token and a new refresh token on every use', async () => {
    const { refresh, token } = await setup();
    const result = await refresh(token);
    expect(result.status).toBe(200);
    expect(result.headers['cache-control']).toBe('no-store');
    const body = json(result);
    expect(body.refresh_token).toMatch(/^[A-Za-z0-9_-]{32,}$/);
    expect(body.refresh_token).not.toBe(token);
    expect(body.scope).toBe('files mcp openid');
    expect(body.expires_in).toBe(900);
  });

  it('a narrower scope narrows the access token; the next refresh may still ask for the original', async () => {
    const { refresh, token } = await setup();
    const narrowed = json(await refresh(token, { scope: 'mcp' }));
    expect(narrowed.scope).toBe('mcp');
    expect(decodePayload(String(narrowed.access_token)).scope).toBe('mcp');
    const widened = json(await refresh(String(narrowed.refresh_token), { scope: 'mcp files' }));
    expect(widened.scope).toBe('files mcp');
  });

  it('a wider scope is invalid_scope and leaves the token usable', async () => {
    const { refresh, token } = await setup();
    expect(json(await refresh(token, { scope: 'mcp admin' })).error).toBe('invalid_scope');
    expect((await refresh(token)).status).toBe(200);
  });

  it('an expired refresh token (after 30 days) is invalid_grant', async () => {
    const { t, refresh, token } = await setup();
    t.clock.advance(30 * 86_400_000 + 1);
    expect(json(await refresh(token)).error).toBe('invalid_grant');
  });

  it('a refresh token presented by another client is invalid_grant', async () => {
    const { t, token } = await setup();
    const other = await registerClient(t.server, { token_endpoint_auth_method: 'none' });
    const result = await t.server.token(
      postForm('/tenant/demo/token', {
        grant_type: 'refresh_token',
        refresh_token: token,
        client_id: other.client_id,
      }),
      'demo',
    );
    expect(json(result).error).toBe('invalid_grant');
  });

  it('an unknown refresh token is invalid_grant', async () => {
    const { refresh } = await setup();
    expect(json(await refresh('not-a-token')).error).toBe('invalid_grant');
  });
});

describe('POST /token refresh_token: consumed → rejected (replay revokes the family)', () => {
  it('a replayed old token (after the reuse window) is rejected and revokes every token of its family', async () => {
    const { t, refresh, token } = await setup();
    const second = String(json(await refresh(token)).refresh_token);
    t.clock.advance(5_000);
    const replay = await refresh(token);
    expect(replay.status).toBe(400);
    expect(json(replay).error).toBe('invalid_grant');
    // The legitimate newest token is dead too: the family is revoked.
    expect(json(await refresh(second)).error).toBe('invalid_grant');
  });

  it('a family revocation leaves other families alone', async () => {
    const { t, client, refresh, token } = await setup();
    const { code, verifier } = await obtainCode(t, client.client_id, { scope: 'mcp' });
    const otherFamily = String(json(await exchangeCode(t, client, code, verifier)).refresh_token);
    await refresh(token);
    t.clock.advance(5_000);
    await refresh(token);
    expect((await refresh(otherFamily)).status).toBe(200);
  });
});

describe('POST /token refresh_token: the reuse window (racing refreshes, a retry after a lost response)', () => {
  it('the same client presenting the token it just rotated gets the same refresh token and a fresh access token for the same grant', async () => {
    const { t, refresh, token } = await setup();
    const first = json(await refresh(token));
    t.clock.advance(1_000);
    const again = json(await refresh(token));
    expect(again.refresh_token).toBe(first.refresh_token);
    expect(again.access_token).not.toBe(first.access_token);
    const [a, b] = [decodePayload(String(first.access_token)), decodePayload(String(again.access_token))];
    expect({ sub: b.sub, scope: b.scope, aud: b.aud, client_id: b.client_id }).toEqual({
      sub: a.sub,
      scope: a.scope,
      aud: a.aud,
      client_id: a.client_id,
    });
    expect(again.expires_in).toBe(900);
    expect((await refresh(String(again.refresh_token))).status).toBe(200);
  });

  it('a narrower scope on the repeat narrows its access token only', async () => {
    const { refresh, token } = await setup();
    const first = json(await refresh(token));
    const again = json(await refresh(token, { scope: 'mcp' }));
    expect(again.refresh_token).toBe(first.refresh_token);
    expect(decodePayload(String(again.access_token)).scope).toBe('mcp');
  });

  it('the store keeps the successor sealed under the old token, never in the clear', async () => {
    const { t, refresh, token } = await setup();
    const first = json(await refresh(token));
    const old = await t.storage.refreshTokens.get('demo', sha256Base64url(token));
    expect(old?.sealedSuccessor).toMatch(/^r1\.[A-Za-z0-9_-]+$/);
    expect(old?.sealedSuccessor).not.toContain(String(first.refresh_token));
    // A wrong key (any other token) does not open it: the repeat must present the old token itself.
    const successor = await t.storage.refreshTokens.get('demo', sha256Base64url(String(first.refresh_token)));
    expect(successor?.sealedSuccessor).toBeUndefined();
  });

  it('a family revoked inside the window (RFC 7009 revocation) refuses the repeat', async () => {
    const { t, client, refresh, token } = await setup();
    const first = json(await refresh(token));
    const revoked = await t.server.revoke(
      postForm('/tenant/demo/revoke', { token: String(first.refresh_token), client_id: client.client_id }),
      'demo',
    );
    expect(revoked.status).toBe(200);
    expect(json(await refresh(token)).error).toBe('invalid_grant');
  });

  it('the window ends at refreshReuseWindowSeconds: 0 ms before it the same successor, at it a replay', async () => {
    const { t, refresh, token } = await setup();
    const first = json(await refresh(token));
    t.clock.advance(4_999);
    expect(json(await refresh(token)).refresh_token).toBe(first.refresh_token);
    t.clock.advance(1);
    expect(json(await refresh(token)).error).toBe('invalid_grant');
    expect(json(await refresh(String(first.refresh_token))).error).toBe('invalid_grant');
  });
});

describe('createAuthorizationServer refreshReuseWindowSeconds: validated at creation', () => {
  it('accepts 0 (strict rotation) to 300 whole seconds and refuses anything else', async () => {
    for (const good of [0, 1, 300]) {
      await expect(createTestServer({ options: { refreshReuseWindowSeconds: good } })).resolves.toBeDefined();
    }
    for (const bad of [-1, 1.5, 301, Number.NaN]) {
      await expect(createTestServer({ options: { refreshReuseWindowSeconds: bad } })).rejects.toMatchObject({
        name: 'OAuthCoreError',
        code: 'ERR_INVALID_OPTIONS',
      });
    }
  });

  it('with 0, presenting a rotated token again at once revokes the family', async () => {
    const t = await createTestServer({ options: { refreshReuseWindowSeconds: 0 } });
    const client = await registerClient(t.server, { token_endpoint_auth_method: 'none' });
    const { code, verifier } = await obtainCode(t, client.client_id);
    const token = String(json(await exchangeCode(t, client, code, verifier)).refresh_token);
    const refresh = (value: string) =>
      t.server.token(
        postForm('/tenant/demo/token', {
          grant_type: 'refresh_token',
          refresh_token: value,
          client_id: client.client_id,
        }),
        'demo',
      );
    const first = json(await refresh(token));
    expect(
      (await t.storage.refreshTokens.get('demo', sha256Base64url(token)))?.sealedSuccessor,
    ).toBeUndefined();
    expect(json(await refresh(token)).error).toBe('invalid_grant');
    expect(json(await refresh(String(first.refresh_token))).error).toBe('invalid_grant');
  });
});

describe('a store written for the old rotate contract fails loudly, never issuing a token', () => {
  it('an answer without ok (the pre-0.2 { outcome } shape) is an error that names the version mismatch', async () => {
    const { t, refresh, token } = await setup();
    const store = t.storage.refreshTokens as { rotate: (...args: never[]) => Promise<unknown> };
    const rotate = store.rotate.bind(store);
    store.rotate = async (...args: never[]) => {
      const outcome = (await rotate(...args)) as { ok: boolean; previous?: unknown };
      return outcome.ok ? { outcome: 'rotated', previous: outcome.previous } : outcome;
    };
    await expect(refresh(token)).rejects.toThrow(/not a RefreshTokenRotationOutcome.*matching versions/);
  });
});
