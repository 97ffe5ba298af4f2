import type { Logger, RequestOutcome, RequestTracing } from '@keyhold/core';
import { StorageUnavailableError } from '@keyhold/core';
import { describe, expect, it } from 'vitest';
import { createMemoryStorage } from '../../src/index.js';
import {
  authorizeRequest,
  createTestServer,
  exchangeCode,
  get,
  json,
  obtainCode,
  postForm,
  REDIRECT_URI,
  RESOURCE,
  registerClient,
} from '../helpers.js';
import { faultyStorage } from './faulty-storage.js';

interface Line {
  readonly level: string;
  readonly fields: Record<string, unknown>;
  readonly message: string | undefined;
}

function recordingLogger(): { logger: Logger; lines: Line[] } {
  const lines: Line[] = [];
  const at =
    (level: string) =>
    (fields: Record<string, unknown>, message?: string): void => {
      lines.push({ level, fields, message });
    };
  return {
    logger: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') },
    lines,
  };
}

async function setup() {
  const faults = faultyStorage(createMemoryStorage());
  const { logger, lines } = recordingLogger();
  const outcomes: RequestOutcome[] = [];
  const tracing: RequestTracing = { start: () => (outcome) => outcomes.push(outcome) };
  const t = await createTestServer({ options: { storage: faults.storage, logger, tracing } });
  const client = await registerClient(t.server, { token_endpoint_auth_method: 'none' });
  return { t, faults, client, lines, outcomes };
}

describe('outage: the token endpoint answers 503 temporarily_unavailable with Retry-After (RFC 6749 §4.1.2.1)', () => {
  it('an outage while taking the code is a 503 JSON answer, never cached, with the store’s Retry-After', async () => {
    const { t, faults, client } = await setup();
    const { code, verifier } = await obtainCode(t, client.client_id);
    faults.fail('authorizationCodes.consume', 'unavailable');
    const result = await exchangeCode(t, client, code, verifier);
    expect(result.status).toBe(503);
    expect(result.headers['retry-after']).toBe('7');
    expect(result.headers['cache-control']).toBe('no-store');
    expect(result.headers['content-type']).toMatch(/^application\/json/);
    expect(json(result).error).toBe('temporarily_unavailable');
    // Nothing was taken: the same code still works once storage answers again.
    expect((await exchangeCode(t, client, code, verifier)).status).toBe(200);
  });

  it('logs one warn line naming the component and the endpoint, and records the outcome as 503', async () => {
    const { t, faults, client, lines, outcomes } = await setup();
    const { code, verifier } = await obtainCode(t, client.client_id);
    lines.length = 0;
    outcomes.length = 0;
    faults.fail('authorizationCodes.consume', 'unavailable');
    await exchangeCode(t, client, code, verifier);
    const warnings = lines.filter((line) => line.level === 'warn');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.fields).toMatchObject({
      event: 'storage_unavailable',
      component: 'memory',
      endpoint: 'token',
      tenant: 'demo',
    });
    expect(JSON.stringify(lines)).not.toContain(code);
    expect(JSON.stringify(lines)).not.toContain(verifier);
    expect(outcomes).toEqual([
      expect.objectContaining({ status: 503, errorCode: 'temporarily_unavailable' }),
    ]);
    expect(t.events.at(-1)).toMatchObject({ endpoint: 'token', status: 503 });
  });

  it('an outage looking the tenant up is a 503 too (the tenant lookup is storage)', async () => {
    const lookup = createTestServer({
      options: {
        tenants: {
          get: () => {
            throw new StorageUnavailableError('postgres', { retryAfterSeconds: 3 });
          },
        },
      },
    });
    const server = (await lookup).server;
    const result = await server.token(
      postForm('/tenant/demo/token', { grant_type: 'client_credentials' }),
      'demo',
    );
    expect(result.status).toBe(503);
    expect(result.headers['retry-after']).toBe('3');
    expect(json(result).error).toBe('temporarily_unavailable');
  });

  it('an outage of the rate limiter is a 503, not a 500 and not a 429', async () => {
    const faults = faultyStorage(createMemoryStorage());
    const t = await createTestServer({
      options: {
        storage: faults.storage,
        rateLimits: {
          limiter: {
            increment: async () => {
              throw new StorageUnavailableError('redis:limiter', { retryAfterSeconds: 2 });
            },
            reset: async () => {},
          },
        },
      },
    });
    const result = await t.server.token(
      postForm('/tenant/demo/token', { grant_type: 'client_credentials' }),
      'demo',
    );
    expect(result.status).toBe(503);
    expect(result.headers['retry-after']).toBe('2');
  });

  it('other JSON endpoints (registration, revocation, introspection) answer the same 503', async () => {
    const { t, faults, client } = await setup();
    faults.fail('clients.create', 'unavailable');
    const registered = await t.server.register(
      {
        method: 'POST',
        path: '/tenant/demo/register',
        query: '',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none' }),
      },
      'demo',
    );
    expect(registered.status).toBe(503);
    expect(json(registered).error).toBe('temporarily_unavailable');
    faults.fail('refreshTokens.get', 'unavailable');
    const revoked = await t.server.revoke(
      postForm('/tenant/demo/revoke', { token: 'x'.repeat(43), client_id: client.client_id }),
      'demo',
    );
    expect(revoked.status).toBe(503);
  });

  it('a storage failure that is not an outage still rejects (the host’s 500), unchanged', async () => {
    const { t, faults, client } = await setup();
    const { code, verifier } = await obtainCode(t, client.client_id);
    faults.fail('authorizationCodes.consume', 'before');
    await expect(exchangeCode(t, client, code, verifier)).rejects.toThrow('injected storage fault');
  });
});

describe('outage: the pages (authorize, consent) answer a 503 error page with Retry-After', () => {
  it('authorize: a 503 HTML page, never a redirect, with Retry-After and no-store', async () => {
    const { t, faults, client, lines } = await setup();
    faults.fail('pendingAuthorizations.save', 'unavailable');
    const result = await t.server.authorize(authorizeRequest(client.client_id), 'demo');
    expect(result.status).toBe(503);
    expect(result.headers.location).toBeUndefined();
    expect(result.headers['content-type']).toMatch(/^text\/html/);
    expect(result.headers['retry-after']).toBe('7');
    expect(result.headers['cache-control']).toBe('no-store');
    expect(result.body).toContain('temporarily_unavailable');
    expect(lines.filter((line) => line.level === 'warn')).toEqual([
      expect.objectContaining({
        fields: expect.objectContaining({ component: 'memory', endpoint: 'authorize' }),
      }),
    ]);
  });

  it('consent: the page and the decision answer a 503 page too', async () => {
    const { t, faults } = await setup();
    faults.fail('pendingAuthorizations.get', 'unavailable');
    const page = await t.server.consentPage(
      get('/tenant/demo/consent', { req: 'r'.repeat(32) }, 'user-1'),
      'demo',
    );
    expect(page.status).toBe(503);
    expect(page.headers['retry-after']).toBe('7');
    expect(page.headers['content-type']).toMatch(/^text\/html/);
  });

  it('through fetch: an outage in the host’s resolveUserId is the same 503 page', async () => {
    const t = await createTestServer({
      options: {
        resolveUserId: async () => {
          throw new StorageUnavailableError('redis:sessions', { retryAfterSeconds: 4 });
        },
      },
    });
    const response = await t.server.fetch(
      new Request('https://auth.example/tenant/demo/authorize?client_id=x'),
    );
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('4');
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
  });
});

describe('outage: a bearer check during an outage is a 503, never a 401 (the client keeps its token)', () => {
  async function withAccessToken() {
    const s = await setup();
    const { code, verifier } = await obtainCode(s.t, s.client.client_id);
    const tokens = json(await exchangeCode(s.t, s.client, code, verifier)) as { access_token: string };
    return { ...s, accessToken: tokens.access_token };
  }

  it('verifyAccessToken: the revocation lookup failing gives a ready 503 with Retry-After, no challenge', async () => {
    const { t, faults, accessToken, lines } = await withAccessToken();
    faults.fail('revokedAccessTokens.isRevoked', 'unavailable');
    const check = await t.server.verifyAccessToken('demo', `Bearer ${accessToken}`);
    expect(check.ok).toBe(false);
    if (check.ok) return;
    expect(check.result.status).toBe(503);
    expect(check.result.headers['retry-after']).toBe('7');
    expect(check.result.headers['www-authenticate']).toBeUndefined();
    expect(json(check.result).error).toBe('temporarily_unavailable');
    expect(lines.filter((line) => line.level === 'warn').map((line) => line.fields)).toEqual([
      expect.objectContaining({ event: 'storage_unavailable', component: 'memory', endpoint: 'bearer' }),
    ]);
    expect(JSON.stringify(lines)).not.toContain(accessToken);
    // The same token is good once storage answers.
    expect((await t.server.verifyAccessToken('demo', `Bearer ${accessToken}`)).ok).toBe(true);
  });

  it('tokenVerifier: the outage propagates as StorageUnavailableError, never as invalid_token', async () => {
    const { t, faults, accessToken } = await withAccessToken();
    faults.fail('revokedAccessTokens.isRevoked', 'unavailable');
    const verifier = t.server.tokenVerifier('demo');
    const failure = await verifier.verifyAccessToken(accessToken).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(StorageUnavailableError);
    expect((failure as { code?: string }).code).toBe('ERR_STORAGE_UNAVAILABLE');
    expect((await verifier.verifyAccessToken(accessToken)).resource?.href).toBe(RESOURCE);
  });
});
