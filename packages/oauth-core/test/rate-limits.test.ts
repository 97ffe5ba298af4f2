import type { HandlerRequest, HandlerResult, Logger, RateLimiter } from '@keyhold/core';
import { createMemoryRateLimiter } from '@keyhold/core';
import { describe, expect, it } from 'vitest';
import type { CimdResolver } from '../src/cimd/types.js';
import type { RateLimitsOptions } from '../src/index.js';
import { OAuthCoreError } from '../src/index.js';
import { DEFAULT_RATE_LIMITS } from '../src/rate-limits.js';
import {
  authorizeRequest,
  BASE_URL,
  basic,
  createTestServer,
  get,
  json,
  postForm,
  provisionClient,
  REDIRECT_URI,
  registerClient,
} from './helpers.js';

const IP_A = '198.51.100.1';
const IP_B = '198.51.100.2';

function withIp(request: HandlerRequest, ip: string | undefined): HandlerRequest {
  return ip === undefined ? request : { ...request, ip };
}

function registration(ip?: string): HandlerRequest {
  return withIp(
    {
      method: 'POST',
      path: '/tenant/demo/register',
      query: '',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: [REDIRECT_URI], client_name: 'App' }),
    },
    ip,
  );
}

function authorization(clientId: string, ip?: string, userId = 'user-1'): HandlerRequest {
  return withIp(authorizeRequest(clientId, { state: 's' }, userId), ip);
}

function tokenRequest(clientId: string, ip: string, viaBasic = false): HandlerRequest {
  const form = {
    grant_type: 'authorization_code',
    code: 'nope',
    redirect_uri: REDIRECT_URI,
    code_verifier: 'v'.repeat(43),
  };
  return withIp(
    viaBasic
      ? postForm('/tenant/demo/token', form, basic(clientId, 'secret'))
      : postForm('/tenant/demo/token', { ...form, client_id: clientId }),
    ip,
  );
}

function consentDecision(ip: string | undefined, userId?: string): HandlerRequest {
  return withIp(
    postForm('/tenant/demo/consent', { req: 'unknown-ref', decision: 'approve' }, {}, userId),
    ip,
  );
}

async function limitedServer(rateLimits: Omit<RateLimitsOptions, 'limiter'> & { limiter?: RateLimiter }) {
  const warnings: Record<string, unknown>[] = [];
  const logger: Logger = { debug: () => {}, info: () => {}, warn: (f) => warnings.push(f), error: () => {} };
  const t = await createTestServer({
    options: { rateLimits: { limiter: createMemoryRateLimiter(), ...rateLimits }, logger },
  });
  return { ...t, warnings };
}

function expectRateLimitedJson(result: HandlerResult, retryAfter: string): void {
  expect(result.status).toBe(429);
  expect(result.headers['retry-after']).toBe(retryAfter);
  expect(result.headers['cache-control']).toBe('no-store');
  expect(result.headers['content-type']).toMatch(/^application\/json/);
  expect(result.headers['www-authenticate']).toBeUndefined();
  const body = json(result);
  expect(body.error).toBe('rate_limited');
  expect(typeof body.error_description).toBe('string');
}

describe('rateLimits: off by default in the library', () => {
  it('registers far more than the default budget when no rateLimits option is given', async () => {
    const t = await createTestServer();
    for (let i = 0; i < DEFAULT_RATE_LIMITS.register.limit + 5; i++) {
      expect((await t.server.register(registration(IP_A), 'demo')).status).toBe(201);
    }
  });
});

describe('POST /register: limited per client IP', () => {
  it('answers the request over the limit with 429, Retry-After in whole seconds and rate_limited JSON', async () => {
    const t = await limitedServer({ register: { limit: 2, windowSeconds: 60 } });
    t.clock.set(Date.parse('2026-03-01T12:00:10.500Z'));
    expect((await t.server.register(registration(IP_A), 'demo')).status).toBe(201);
    expect((await t.server.register(registration(IP_A), 'demo')).status).toBe(201);
    const limited = await t.server.register(registration(IP_A), 'demo');
    expectRateLimitedJson(limited, '50');
    expect(limited.headers['access-control-allow-origin']).toBe('*');
  });

  it('does no work for a limited request: the client is not stored', async () => {
    const t = await limitedServer({ register: { limit: 1, windowSeconds: 60 } });
    await t.server.register(registration(IP_A), 'demo');
    let stored = 0;
    const original = t.storage.clients.create.bind(t.storage.clients);
    t.storage.clients.create = async (...args) => {
      stored += 1;
      return original(...args);
    };
    expect((await t.server.register(registration(IP_A), 'demo')).status).toBe(429);
    expect(stored).toBe(0);
  });

  it('counts each client IP separately', async () => {
    const t = await limitedServer({ register: { limit: 1, windowSeconds: 60 } });
    expect((await t.server.register(registration(IP_A), 'demo')).status).toBe(201);
    expect((await t.server.register(registration(IP_A), 'demo')).status).toBe(429);
    expect((await t.server.register(registration(IP_B), 'demo')).status).toBe(201);
  });

  it('opens a new budget when the window turns', async () => {
    const t = await limitedServer({ register: { limit: 1, windowSeconds: 60 } });
    t.clock.set(Date.parse('2026-03-01T12:00:00Z'));
    await t.server.register(registration(IP_A), 'demo');
    t.clock.advance(59_000);
    expect((await t.server.register(registration(IP_A), 'demo')).status).toBe(429);
    t.clock.advance(1_000);
    expect((await t.server.register(registration(IP_A), 'demo')).status).toBe(201);
  });

  it('puts requests without an address into one shared "unknown" bucket', async () => {
    const t = await limitedServer({ register: { limit: 1, windowSeconds: 60 } });
    expect((await t.server.register(registration(), 'demo')).status).toBe(201);
    expect((await t.server.register(registration(), 'demo')).status).toBe(429);
    expect((await t.server.register(registration(IP_A), 'demo')).status).toBe(201);
  });

  it('logs a structured warning without secrets and records the 429 in metrics', async () => {
    const t = await limitedServer({ register: { limit: 1, windowSeconds: 60 } });
    await t.server.register(registration(IP_A), 'demo');
    await t.server.register(registration(IP_A), 'demo');
    expect(t.warnings).toContainEqual(
      expect.objectContaining({ event: 'rate_limited', endpoint: 'register', tenant: 'demo' }),
    );
    expect(JSON.stringify(t.warnings)).not.toContain(IP_A);
    expect(t.events.at(-1)).toMatchObject({ endpoint: 'register', status: 429, error_code: 'rate_limited' });
  });
});

describe('GET /authorize: limited per client IP, answered with the HTML error page', () => {
  it('answers 429 with Retry-After and an HTML page', async () => {
    const t = await limitedServer({ authorize: { limit: 1, windowSeconds: 60 } });
    const client = await registerClient(t.server);
    t.clock.set(Date.parse('2026-03-01T12:00:30Z'));
    expect((await t.server.authorize(authorization(client.client_id, IP_A), 'demo')).status).toBe(302);
    const limited = await t.server.authorize(authorization(client.client_id, IP_A), 'demo');
    expect(limited.status).toBe(429);
    expect(limited.headers['retry-after']).toBe('30');
    expect(limited.headers['content-type']).toMatch(/^text\/html/);
    expect(limited.headers['cache-control']).toBe('no-store');
    expect(limited.body).toContain('rate_limited');
    expect((await t.server.authorize(authorization(client.client_id, IP_B), 'demo')).status).toBe(302);
  });
});

describe('POST /token: one counter per client IP, and one per confidential client after it authenticated', () => {
  it('limits one authenticated client across addresses', async () => {
    const t = await limitedServer({ token: { limit: 2, windowSeconds: 60 } });
    const client = await provisionClient(t.server, { grantTypes: ['client_credentials'] });
    const request = (ip: string, secret = client.client_secret ?? '') => ({
      ...postForm(
        '/tenant/demo/token',
        { grant_type: 'client_credentials' },
        basic(client.client_id, secret),
      ),
      ip,
    });
    expect((await t.server.token(request(IP_A), 'demo')).status).toBe(200);
    expect((await t.server.token(request(IP_B), 'demo')).status).toBe(200);
    expectRateLimitedJson(await t.server.token(request('198.51.100.3'), 'demo'), '60');
  });

  it('a client id named by someone without its secret spends nothing of that client (no lockout)', async () => {
    const t = await limitedServer({ token: { limit: 2, windowSeconds: 60 } });
    const client = await provisionClient(t.server, { grantTypes: ['client_credentials'] });
    for (const ip of ['203.0.113.10', '203.0.113.11', '203.0.113.12', '203.0.113.13']) {
      const forged = {
        ...postForm(
          '/tenant/demo/token',
          { grant_type: 'client_credentials' },
          basic(client.client_id, 'guess'),
        ),
        ip,
      };
      expect((await t.server.token(forged, 'demo')).status).toBe(401);
    }
    const real = {
      ...postForm(
        '/tenant/demo/token',
        { grant_type: 'client_credentials' },
        basic(client.client_id, client.client_secret ?? ''),
      ),
      ip: IP_A,
    };
    expect((await t.server.token(real, 'demo')).status).toBe(200);
  });

  it('limits one address across client_ids', async () => {
    const t = await limitedServer({ token: { limit: 2, windowSeconds: 60 } });
    expect((await t.server.token(tokenRequest('client-1', IP_A), 'demo')).status).not.toBe(429);
    expect((await t.server.token(tokenRequest('client-2', IP_A), 'demo')).status).not.toBe(429);
    expectRateLimitedJson(await t.server.token(tokenRequest('client-3', IP_A), 'demo'), '60');
    expect((await t.server.token(tokenRequest('client-4', IP_B), 'demo')).status).not.toBe(429);
  });

  it('is never a 401, even for a request whose client would fail authentication', async () => {
    const t = await limitedServer({ token: { limit: 1, windowSeconds: 60 } });
    expect((await t.server.token(tokenRequest('client-1', IP_A, true), 'demo')).status).toBe(401);
    expect((await t.server.token(tokenRequest('client-1', IP_A, true), 'demo')).status).toBe(429);
  });

  it('opens a new budget when the window turns', async () => {
    const t = await limitedServer({ token: { limit: 1, windowSeconds: 10 } });
    t.clock.set(Date.parse('2026-03-01T12:00:00Z'));
    await t.server.token(tokenRequest('client-1', IP_A), 'demo');
    expect((await t.server.token(tokenRequest('client-1', IP_A), 'demo')).status).toBe(429);
    t.clock.advance(10_000);
    expect((await t.server.token(tokenRequest('client-1', IP_A), 'demo')).status).not.toBe(429);
  });
});

describe('/consent: limited per signed-in user, per client IP without one', () => {
  it('limits one user across addresses, and keeps users apart', async () => {
    const t = await limitedServer({ consent: { limit: 1, windowSeconds: 60 } });
    expect((await t.server.consent(consentDecision(IP_A, 'alice'), 'demo')).status).not.toBe(429);
    const limited = await t.server.consent(consentDecision(IP_B, 'alice'), 'demo');
    expect(limited.status).toBe(429);
    expect(limited.headers['retry-after']).toBe('60');
    expect(limited.headers['content-type']).toMatch(/^text\/html/);
    expect((await t.server.consent(consentDecision(IP_B, 'bob'), 'demo')).status).not.toBe(429);
  });

  it('counts decisions only: the consent page (a read) spends nothing', async () => {
    const t = await limitedServer({ consent: { limit: 1, windowSeconds: 60 } });
    for (let i = 0; i < 3; i++) {
      const page = await t.server.consentPage(
        withIp(get('/tenant/demo/consent', { req: 'x' }, 'alice'), IP_A),
        'demo',
      );
      expect(page.status).not.toBe(429);
    }
    expect((await t.server.consent(consentDecision(IP_A, 'alice'), 'demo')).status).not.toBe(429);
    expect((await t.server.consent(consentDecision(IP_A, 'alice'), 'demo')).status).toBe(429);
  });

  it('falls back to the client IP when there is no user', async () => {
    const t = await limitedServer({ consent: { limit: 1, windowSeconds: 60 } });
    expect((await t.server.consent(consentDecision(IP_A), 'demo')).status).not.toBe(429);
    expect((await t.server.consent(consentDecision(IP_A), 'demo')).status).toBe(429);
    expect((await t.server.consent(consentDecision(IP_B), 'demo')).status).not.toBe(429);
  });
});

describe('a request its Origin check refuses spends no budget (a page on another site cannot hold clients at 429)', () => {
  const foreign = { origin: 'https://evil.example' };

  it('/register: a burst of cross-origin registrations (403) leaves the address its whole budget', async () => {
    const t = await limitedServer({ register: { limit: 2, windowSeconds: 60 } });
    for (let i = 0; i < 10; i++) {
      const request = registration(IP_A);
      const refused = await t.server.register(
        { ...request, headers: { ...request.headers, ...foreign } },
        'demo',
      );
      expect(refused.status).toBe(403);
    }
    const sameOrigin = registration(IP_A);
    const own = { ...sameOrigin, headers: { ...sameOrigin.headers, origin: BASE_URL } };
    expect((await t.server.register(own, 'demo')).status).toBe(201);
    expect((await t.server.register(registration(IP_A), 'demo')).status).toBe(201);
    expect((await t.server.register(registration(IP_A), 'demo')).status).toBe(429);
    expect(t.warnings.filter((fields) => fields.event === 'rate_limited')).toHaveLength(1);
  });

  it('/consent: a burst of cross-origin decisions (403) leaves the user and the address their budget', async () => {
    const t = await limitedServer({ consent: { limit: 1, windowSeconds: 60 } });
    for (const userId of ['alice', undefined]) {
      for (let i = 0; i < 10; i++) {
        const request = consentDecision(IP_A, userId);
        const refused = await t.server.consent(
          { ...request, headers: { ...request.headers, ...foreign } },
          'demo',
        );
        expect(refused.status).toBe(403);
        expect(refused.body).toContain('cross-origin request refused');
      }
      // Same-origin, it reaches the handler (refused there for its missing form token, not for budget).
      const decided = await t.server.consent(consentDecision(IP_A, userId), 'demo');
      expect(decided.status, String(userId)).not.toBe(429);
      expect(decided.body).not.toContain('cross-origin request refused');
      expect((await t.server.consent(consentDecision(IP_A, userId), 'demo')).status).toBe(429);
    }
    expect(t.warnings.filter((fields) => fields.event === 'rate_limited')).toHaveLength(2);
  });
});

describe('rules: defaults when given without numbers, false turns one off', () => {
  it('applies DEFAULT_RATE_LIMITS to a rule that is left out', async () => {
    const t = await limitedServer({});
    for (let i = 0; i < DEFAULT_RATE_LIMITS.register.limit; i++) {
      expect((await t.server.register(registration(IP_A), 'demo')).status).toBe(201);
    }
    expect((await t.server.register(registration(IP_A), 'demo')).status).toBe(429);
  });

  it('fills a missing window from the default', async () => {
    const t = await limitedServer({ register: { limit: 1 } });
    t.clock.set(Date.parse('2026-03-01T12:00:00Z'));
    await t.server.register(registration(IP_A), 'demo');
    const limited = await t.server.register(registration(IP_A), 'demo');
    expect(limited.headers['retry-after']).toBe(String(DEFAULT_RATE_LIMITS.register.windowSeconds));
  });

  it('turns a rule off with false', async () => {
    const t = await limitedServer({ register: false });
    for (let i = 0; i < DEFAULT_RATE_LIMITS.register.limit + 2; i++) {
      expect((await t.server.register(registration(IP_A), 'demo')).status).toBe(201);
    }
  });

  it('leaves endpoints without a rule alone (revoke, introspect, metadata)', async () => {
    const t = await limitedServer({ register: { limit: 1 }, token: { limit: 1 } });
    for (let i = 0; i < 3; i++) {
      const result = await t.server.authorizationServerMetadata(withIp(get('/x'), IP_A), 'demo');
      expect(result.status).toBe(200);
    }
  });

  it.each([
    [{ register: { limit: 0 } }, /rateLimits\.register\.limit/],
    [{ token: { windowSeconds: 1.5 } }, /rateLimits\.token\.windowSeconds/],
    [{ limiter: {} as RateLimiter }, /rateLimits\.limiter/],
  ])('refuses bad options at creation with ERR_INVALID_OPTIONS (%o)', async (bad, message) => {
    const error = await createTestServer({
      options: { rateLimits: { limiter: createMemoryRateLimiter(), ...bad } as RateLimitsOptions },
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OAuthCoreError);
    expect((error as OAuthCoreError).code).toBe('ERR_INVALID_OPTIONS');
    expect((error as OAuthCoreError).message).toMatch(message);
  });
});

describe('CIMD fetch budget: a spent host budget answers 429 with Retry-After, not invalid_client', () => {
  const CLIENT_ID = 'https://app.example/oauth/client.json';
  const spent: CimdResolver = {
    resolve: async () => ({
      ok: false,
      error: 'fetch_rate_limited',
      description: 'too many client metadata document fetches from app.example; retry in 12 s',
      retryAfterSeconds: 12,
    }),
  };

  it('answers /authorize with the 429 error page', async () => {
    const t = await createTestServer({
      cimdResolver: spent,
      tenant: { allowedCimdDomains: ['app.example'] },
    });
    const result = await t.server.authorize(authorization(CLIENT_ID, IP_A), 'demo');
    expect(result.status).toBe(429);
    expect(result.headers['retry-after']).toBe('12');
    expect(result.headers['content-type']).toMatch(/^text\/html/);
  });

  it('answers /token with rate_limited JSON', async () => {
    const t = await createTestServer({
      cimdResolver: spent,
      tenant: { allowedCimdDomains: ['app.example'] },
    });
    const result = await t.server.token(tokenRequest(CLIENT_ID, IP_A), 'demo');
    expectRateLimitedJson(result, '12');
    expect(json(result).error_description).toContain('app.example');
  });
});
