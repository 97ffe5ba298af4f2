import { describe, expect, it } from 'vitest';
import {
  authorizeRequest,
  consentFormFields,
  createTestServer,
  exchangeCode,
  get,
  json,
  obtainCode,
  obtainTokens,
  postForm,
  redeemRefreshToken,
  registerClient,
} from '../helpers.js';

describe('single use under concurrency', () => {
  it('50 concurrent redemptions of one authorization code: exactly one succeeds', async () => {
    const t = await createTestServer();
    const client = await registerClient(t.server, { token_endpoint_auth_method: 'none' });
    const { code, verifier } = await obtainCode(t, client.client_id);
    const results = await Promise.all(
      Array.from({ length: 50 }, () => exchangeCode(t, client, code, verifier)),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => json(r).error === 'invalid_grant')).toHaveLength(49);
  });

  async function fiftyRefreshesOfOneToken(refreshReuseWindowSeconds: number) {
    const t = await createTestServer({ options: { refreshReuseWindowSeconds } });
    const client = await registerClient(t.server, { token_endpoint_auth_method: 'none' });
    const token = String((await obtainTokens(t, client)).refresh_token);
    return Promise.all(Array.from({ length: 50 }, () => redeemRefreshToken(t, client, token)));
  }

  it('50 concurrent uses of one refresh token inside the default reuse window: all succeed with one successor', async () => {
    const results = await fiftyRefreshesOfOneToken(5);
    expect(results.filter((r) => r.status === 200)).toHaveLength(50);
    expect(new Set(results.map((r) => json(r).refresh_token)).size).toBe(1);
  });

  it('50 concurrent uses of one refresh token with the reuse window off: exactly one succeeds (the rest count as replay)', async () => {
    const results = await fiftyRefreshesOfOneToken(0);
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => json(r).error === 'invalid_grant')).toHaveLength(49);
  });

  it('50 concurrent approvals of one pending authorization: exactly one code', async () => {
    const t = await createTestServer();
    const client = await registerClient(t.server, { token_endpoint_auth_method: 'none' });
    const authorize = await t.server.authorize(authorizeRequest(client.client_id), 'demo');
    const req = new URL(String(authorize.headers.location)).searchParams.get('req') ?? '';
    const page = await t.server.consentPage(get('/tenant/demo/consent', { req }, 'user-1'), 'demo');
    const { cookie, csrfToken } = consentFormFields(page);
    const results = await Promise.all(
      Array.from({ length: 50 }, () =>
        t.server.consent(
          postForm(
            '/tenant/demo/consent',
            { req, decision: 'approve', csrf_token: csrfToken },
            { cookie },
            'user-1',
          ),
          'demo',
        ),
      ),
    );
    expect(results.filter((r) => r.status === 302)).toHaveLength(1);
  });
});
