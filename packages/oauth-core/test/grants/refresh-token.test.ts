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
  it('a replayed old token is rejected and revokes every token of its family', async () => {
    const { refresh, token } = await setup();
    const second = String(json(await refresh(token)).refresh_token);
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
    await refresh(token);
    expect((await refresh(otherFamily)).status).toBe(200);
  });
});
