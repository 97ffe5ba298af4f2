import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_HOST_RATE_LIMITS, readConfig } from '../src/config.js';
import { type HostProcess, startHost } from './host-process.js';
import { postInitialize } from './mcp-initialize.js';
import { authorizeMcpClient, TestOAuthProvider } from './oauth-client.js';

let host: HostProcess | undefined;
afterEach(async () => {
  await host?.stop({ removeData: true });
  host = undefined;
});

function register(url: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${url}/tenant/demo/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ redirect_uris: ['http://127.0.0.1/cb'], token_endpoint_auth_method: 'none' }),
  });
}

describe('rate limits are on by default in the example host', () => {
  it(`answers /register over ${DEFAULT_HOST_RATE_LIMITS.register.limit} a minute per IP with 429 and Retry-After`, async () => {
    host = await startHost();
    const { limit, windowSeconds } = DEFAULT_HOST_RATE_LIMITS.register;
    // Windows are aligned to the clock, so a run straddling a boundary may get up to twice the budget.
    let accepted = 0;
    let limited = await register(host.url);
    while (limited.status === 201 && accepted < 2 * limit) {
      accepted += 1;
      limited = await register(host.url);
    }
    expect(limited.status).toBe(429);
    expect(accepted).toBeGreaterThanOrEqual(limit);
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= windowSeconds).toBe(true);
    expect(limited.headers.get('cache-control')).toBe('no-store');
    expect(await limited.json()).toMatchObject({ error: 'rate_limited' });
  });

  it('takes a rule from KEYHOLD_RATE_LIMIT_<RULE> and turns everything off with KEYHOLD_RATE_LIMITS=off', async () => {
    host = await startHost({ KEYHOLD_RATE_LIMIT_REGISTER: '1/3600' });
    expect((await register(host.url)).status).toBe(201);
    const limited = await register(host.url);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    await host.stop({ removeData: true });

    host = await startHost({ KEYHOLD_RATE_LIMITS: 'off', KEYHOLD_RATE_LIMIT_REGISTER: '1/3600' });
    for (let i = 0; i < 3; i++) expect((await register(host.url)).status).toBe(201);
  });
});

describe('a request refused by its Origin check spends no budget', () => {
  it('a burst of cross-origin registrations (403) leaves the loopback address its budget', async () => {
    host = await startHost({ KEYHOLD_RATE_LIMIT_REGISTER: '1/3600' });
    for (let i = 0; i < 5; i++) {
      expect((await register(host.url, { origin: 'https://evil.example' })).status).toBe(403);
    }
    expect((await register(host.url, { origin: new URL(host.url).origin })).status).toBe(201);
    expect((await register(host.url)).status).toBe(429);
  });
});

describe('KEYHOLD_TRUSTED_PROXIES: behind a listed proxy the forwarded client is counted, never otherwise', () => {
  it('gives each forwarded client its own budget behind a trusted proxy', async () => {
    host = await startHost({ KEYHOLD_RATE_LIMIT_REGISTER: '1/3600', KEYHOLD_TRUSTED_PROXIES: '127.0.0.1' });
    const from = (client: string) => ({ 'x-forwarded-for': client });
    expect((await register(host.url, from('203.0.113.7'))).status).toBe(201);
    expect((await register(host.url, from('203.0.113.7'))).status).toBe(429);
    expect((await register(host.url, from('198.51.100.9'))).status).toBe(201);
  });

  it('ignores X-Forwarded-For from an address that is not a listed proxy (a client cannot pick its budget)', async () => {
    host = await startHost({ KEYHOLD_RATE_LIMIT_REGISTER: '1/3600' });
    expect((await register(host.url, { 'x-forwarded-for': '203.0.113.7' })).status).toBe(201);
    expect((await register(host.url, { 'x-forwarded-for': '198.51.100.9' })).status).toBe(429);
  });
});

describe('claim-code guesses at the MCP endpoint are limited per token subject', () => {
  it('answers the guess over KEYHOLD_RATE_LIMIT_CLAIM with 429, Retry-After and a JSON-RPC rate_limited error', async () => {
    host = await startHost({ KEYHOLD_RATE_LIMIT_CLAIM: '2/3600' });
    const mcpUrl = `${host.url}/tenant/demo/mcp`;
    const provider = new TestOAuthProvider('http://127.0.0.1:1/callback');
    await authorizeMcpClient(new URL(mcpUrl), provider);
    const guess = (code: string) =>
      postInitialize(mcpUrl, `${provider.tokens()?.access_token}`, {
        protocolVersion: '2025-06-18',
        clientInfo: { name: 'g', version: '1' },
        headers: { 'mcp-claim-code': code },
      });
    for (const code of ['AAA-AAA', 'BBB-BBB']) {
      const answer = await guess(code);
      // A wrong code is served unscoped (the default) but spends one guess; over the budget it is not even
      // looked up.
      expect(answer.status, code).toBe(200);
      await answer.body?.cancel();
    }
    const limited = await guess('CCC-CCC');
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await limited.json()).toMatchObject({ error: { data: { error: 'rate_limited' } } });
  });
});

describe('readConfig: rate-limit variables', () => {
  const read = (env: Record<string, string>) => readConfig(env, '/tmp');

  it('uses the documented defaults', () => {
    expect(read({}).rateLimits).toEqual(DEFAULT_HOST_RATE_LIMITS);
  });

  it('reads <limit>/<windowSeconds>, <limit> (60 s) and off per rule', () => {
    const limits = read({
      KEYHOLD_RATE_LIMIT_TOKEN: '100/10',
      KEYHOLD_RATE_LIMIT_CLAIM: '5',
      KEYHOLD_RATE_LIMIT_CIMD: 'off',
    }).rateLimits;
    expect(limits?.token).toEqual({ limit: 100, windowSeconds: 10 });
    expect(limits?.claimFailures).toEqual({ limit: 5, windowSeconds: 60 });
    expect(limits?.cimdFetches).toBeUndefined();
    expect(limits?.register).toEqual(DEFAULT_HOST_RATE_LIMITS.register);
  });

  it('turns every limit off with KEYHOLD_RATE_LIMITS=off', () => {
    expect(read({ KEYHOLD_RATE_LIMITS: 'off' }).rateLimits).toBeUndefined();
  });

  it.each([
    ['KEYHOLD_RATE_LIMITS', 'maybe'],
    ['KEYHOLD_RATE_LIMIT_REGISTER', '0/60'],
    ['KEYHOLD_RATE_LIMIT_REGISTER', '10/0'],
    ['KEYHOLD_RATE_LIMIT_AUTHORIZE', 'ten'],
  ])('refuses %s=%s at start', (name, value) => {
    expect(() => read({ [name]: value })).toThrow(name);
  });
});
