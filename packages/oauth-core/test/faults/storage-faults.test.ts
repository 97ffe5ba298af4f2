import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toNodeListener } from '@keyhold/adapter-node';
import { sha256Base64url } from '@keyhold/internal';
import { describe, expect, it } from 'vitest';
import { publicCodeExchangeForm } from '../../../../test-support/code-exchange-form.js';
import { createMemoryStorage } from '../../src/index.js';
import {
  authorizeRequest,
  basic,
  consentFormFields,
  createTestServer,
  exchangeCode,
  get,
  json,
  location,
  obtainCode,
  postForm,
  REDIRECT_URI,
  registerClient,
  USER,
} from '../helpers.js';
import { faultyStorage, InjectedFault, settledWithin } from './faulty-storage.js';

async function setup() {
  const faults = faultyStorage(createMemoryStorage());
  const t = await createTestServer({ options: { storage: faults.storage } });
  const client = await registerClient(t.server, { token_endpoint_auth_method: 'none' });
  return { t, faults, client, storage: faults.storage };
}

function refresh(t: Awaited<ReturnType<typeof setup>>['t'], clientId: string, token: string) {
  return t.server.token(
    postForm('/tenant/demo/token', {
      grant_type: 'refresh_token',
      refresh_token: token,
      client_id: clientId,
    }),
    'demo',
  );
}

describe('fault: the authorization code is taken once, whatever happens next (RFC 6749 §4.1.2, grant code)', () => {
  it('a store refusing consume (nothing taken): the exchange fails, the retry succeeds', async () => {
    const { t, faults, client } = await setup();
    const { code, verifier } = await obtainCode(t, client.client_id);
    faults.fail('authorizationCodes.consume', 'before');
    await expect(exchangeCode(t, client, code, verifier)).rejects.toBeInstanceOf(InjectedFault);
    const retry = await exchangeCode(t, client, code, verifier);
    expect(retry.status).toBe(200);
  });

  it('consume done but its reply lost: the retry is invalid_grant and no token was ever issued', async () => {
    const { t, faults, client } = await setup();
    const { code, verifier } = await obtainCode(t, client.client_id);
    faults.fail('authorizationCodes.consume', 'after');
    await expect(exchangeCode(t, client, code, verifier)).rejects.toBeInstanceOf(InjectedFault);
    const retry = await exchangeCode(t, client, code, verifier);
    expect(retry.status).toBe(400);
    expect(json(retry).error).toBe('invalid_grant');
    expect(faults.completed).not.toContain('refreshTokens.save');
  });

  it('a failure while storing the refresh token: the code is spent (retry invalid_grant), no refresh token exists', async () => {
    const { t, faults, client } = await setup();
    const { code, verifier } = await obtainCode(t, client.client_id);
    faults.fail('refreshTokens.save', 'before');
    await expect(exchangeCode(t, client, code, verifier)).rejects.toBeInstanceOf(InjectedFault);
    const retry = await exchangeCode(t, client, code, verifier);
    expect(json(retry).error).toBe('invalid_grant');
    expect(faults.completed.filter((m) => m === 'refreshTokens.save')).toEqual([]);
  });

  it('through the Node adapter the outage is a generic 500 that names nothing of the store', async () => {
    const { t, faults, client } = await setup();
    const { code, verifier } = await obtainCode(t, client.client_id);
    faults.fail('authorizationCodes.consume', 'before');
    const server = createServer(toNodeListener(t.server));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const response = await fetch(
        `http://127.0.0.1:${(server.address() as AddressInfo).port}/tenant/demo/token`,
        {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams(
            publicCodeExchangeForm(code, verifier, client.client_id, REDIRECT_URI),
          ).toString(),
        },
      );
      expect(response.status).toBe(500);
      const text = await response.text();
      expect(text).not.toContain('injected');
      expect(text).not.toContain('authorizationCodes');
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('fault: refresh rotation never leaves a half-rotated family (OAuth 2.1 §4.3.1)', () => {
  async function withTokens() {
    const s = await setup();
    const { code, verifier } = await obtainCode(s.t, s.client.client_id);
    const tokens = json(await exchangeCode(s.t, s.client, code, verifier)) as { refresh_token: string };
    return { ...s, refreshToken: tokens.refresh_token };
  }

  it('a store refusing rotate: nothing changed, the same refresh token works on retry', async () => {
    const { t, faults, client, refreshToken } = await withTokens();
    faults.fail('refreshTokens.rotate', 'before');
    await expect(refresh(t, client.client_id, refreshToken)).rejects.toBeInstanceOf(InjectedFault);
    expect((await refresh(t, client.client_id, refreshToken)).status).toBe(200);
  });

  it('rotate done but its reply lost: a retry inside the reuse window gets the successor that was stored', async () => {
    const { t, faults, client, refreshToken, storage } = await withTokens();
    const proposed: string[] = [];
    const rotate = storage.refreshTokens.rotate.bind(storage.refreshTokens);
    storage.refreshTokens.rotate = async (tenant, rotation) => {
      proposed.push(rotation.successorHash);
      return rotate(tenant, rotation);
    };
    faults.fail('refreshTokens.rotate', 'after');
    await expect(refresh(t, client.client_id, refreshToken)).rejects.toBeInstanceOf(InjectedFault);
    const retry = json(await refresh(t, client.client_id, refreshToken)) as { refresh_token: string };
    // The retry's own rotation was refused; it answers with the first rotation's successor.
    expect(sha256Base64url(retry.refresh_token)).toBe(proposed[0]);
    expect((await refresh(t, client.client_id, retry.refresh_token)).status).toBe(200);
  });

  it('rotate done but its reply lost, no retry until after the window: the family is revoked, no live token remains', async () => {
    const { t, faults, client, refreshToken, storage } = await withTokens();
    const proposed: string[] = [];
    const rotate = storage.refreshTokens.rotate.bind(storage.refreshTokens);
    storage.refreshTokens.rotate = async (tenant, rotation) => {
      proposed.push(rotation.successorHash);
      return rotate(tenant, rotation);
    };
    faults.fail('refreshTokens.rotate', 'after');
    await expect(refresh(t, client.client_id, refreshToken)).rejects.toBeInstanceOf(InjectedFault);
    t.clock.advance(5_000);
    expect(json(await refresh(t, client.client_id, refreshToken)).error).toBe('invalid_grant');
    const orphan = await storage.refreshTokens.get('demo', proposed[0]!);
    expect(orphan?.revokedAt).toBeDefined();
  });

  it('a failure while revoking a replayed family: the replay still fails, and the next replay revokes it', async () => {
    const { t, faults, client, refreshToken, storage } = await withTokens();
    const rotated = json(await refresh(t, client.client_id, refreshToken)) as { refresh_token: string };
    t.clock.advance(5_000); // past the reuse window: a presentation now is a replay
    faults.fail('refreshTokens.revokeFamily', 'before');
    await expect(refresh(t, client.client_id, refreshToken)).rejects.toBeInstanceOf(InjectedFault);
    expect(json(await refresh(t, client.client_id, refreshToken)).error).toBe('invalid_grant');
    expect(
      (await storage.refreshTokens.get('demo', sha256Base64url(rotated.refresh_token)))?.revokedAt,
    ).toBeDefined();
    expect(json(await refresh(t, client.client_id, rotated.refresh_token)).error).toBe('invalid_grant');
  });
});

describe('fault: the consent decision is taken once; a failure issues no code', () => {
  async function pending() {
    const s = await setup();
    const result = await s.t.server.authorize(authorizeRequest(s.client.client_id, { state: 'st' }), 'demo');
    return { ...s, req: location(result).searchParams.get('req') ?? '' };
  }
  // The browser loads the consent screen once; a retry re-posts the same form (cookie and token).
  const forms = new Map<string, { cookie: string; csrfToken: string }>();
  const approve = async (t: Awaited<ReturnType<typeof setup>>['t'], req: string) => {
    let form = forms.get(req);
    if (!form) {
      form = consentFormFields(
        await t.server.consentPage(get('/tenant/demo/consent', { req }, USER), 'demo'),
      );
      forms.set(req, form);
    }
    return t.server.consent(
      postForm(
        '/tenant/demo/consent',
        { req, decision: 'approve', csrf_token: form.csrfToken },
        { cookie: form.cookie },
        USER,
      ),
      'demo',
    );
  };

  it('consume done but its reply lost: the retry says expired, no code was saved', async () => {
    const { t, faults, req } = await pending();
    faults.fail('pendingAuthorizations.consume', 'after');
    await expect(approve(t, req)).rejects.toBeInstanceOf(InjectedFault);
    expect((await approve(t, req)).status).toBe(400);
    expect(faults.completed).not.toContain('authorizationCodes.save');
  });

  it('a failure saving the code: the request is spent, no code exists, a new authorization works', async () => {
    const { t, faults, req, client } = await pending();
    faults.fail('authorizationCodes.save', 'before');
    await expect(approve(t, req)).rejects.toBeInstanceOf(InjectedFault);
    expect((await approve(t, req)).status).toBe(400);
    expect(faults.completed).not.toContain('authorizationCodes.save');
    const again = await obtainCode(t, client.client_id);
    expect(again.code).toMatch(/^[\w-]{20,}$/);
  });

  it('a failure reading clients at /authorize or /token is an outage (a rejection → 500), never a 4xx that blames the client', async () => {
    const { t, faults, client } = await setup();
    faults.fail('clients.get', 'before');
    await expect(obtainCode(t, client.client_id)).rejects.toBeInstanceOf(InjectedFault);
    faults.fail('clients.get', 'before');
    await expect(
      t.server.token(
        postForm('/tenant/demo/token', { grant_type: 'client_credentials' }, basic(client.client_id, 'x')),
        'demo',
      ),
    ).rejects.toBeInstanceOf(InjectedFault);
  });
});

describe('fault: a hanging store hangs the request; the host bounds it', () => {
  it('the token handler does not settle while the store hangs (the host’s request timeout must end it)', async () => {
    const { t, faults, client } = await setup();
    const { code, verifier } = await obtainCode(t, client.client_id);
    faults.fail('authorizationCodes.consume', 'hang');
    expect(await settledWithin(exchangeCode(t, client, code, verifier), 200)).toBe('pending');
    // The hung call took nothing: once the store answers again the code still works.
    expect((await exchangeCode(t, client, code, verifier)).status).toBe(200);
  });
});
