import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterEach, describe, expect, it } from 'vitest';
import { connectClient, startHost, type TestHost, toolNames } from './host-fixture.js';

const ALL = ['alpha_echo', 'alpha_fail', 'alpha_login', 'beta_echo', 'sneaky_echo'];
const ALPHA = ['alpha_echo', 'alpha_fail', 'alpha_login'];
const GUESSES = ['AAA-AAA', 'BBB-BBB', 'CCC-CCC', 'DDD-DDD', 'EEE-EEE', 'FFF-FFF'];

let host: TestHost | undefined;
const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await host?.close();
  host = undefined;
});

async function client(url: string, code?: string): Promise<Client> {
  const connected = await connectClient(url, code);
  clients.push(connected);
  return connected;
}

function initialize(url: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'guesser', version: '1' },
      },
    }),
  });
}

async function spendBudget(url: string, count: number, headers: Record<string, string> = {}): Promise<void> {
  for (const guess of GUESSES.slice(0, count)) {
    const response = await initialize(url, { 'mcp-claim-code': guess, ...headers });
    expect(response.status, guess).toBe(200);
    await response.body?.cancel();
  }
}

describe('claimFailureRateLimit: guesses per principal are limited before the code is looked up', () => {
  it('answers the guess over the budget with 429, Retry-After and a JSON-RPC rate_limited error', async () => {
    host = await startHost({ claimFailureRateLimit: { limit: 3, windowSeconds: 60 } });
    host.clock.set(Date.parse('2026-01-01T00:00:20Z'));
    await spendBudget(host.url, 3);
    const limited = await initialize(host.url, { 'mcp-claim-code': 'GGG-GGG' });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('40');
    expect(limited.headers.get('cache-control')).toBe('no-store');
    expect(await limited.json()).toEqual({
      jsonrpc: '2.0',
      error: {
        code: -32000,
        message: 'Too many claim-code attempts; retry in 40 s.',
        data: { error: 'rate_limited', retry_after_seconds: 40 },
      },
      id: null,
    });
  });

  it('refuses even a valid code over the budget, so the answer tells a guesser nothing', async () => {
    host = await startHost({ claimFailureRateLimit: { limit: 3, windowSeconds: 60 } });
    const claim = await host.claims.create({ scopeDir: host.alphaDir });
    await spendBudget(host.url, 3);
    expect((await initialize(host.url, { 'mcp-claim-code': claim.code })).status).toBe(429);
  });

  it('does not record a refused code on the session: a later request without it stays unscoped', async () => {
    host = await startHost({ claimFailureRateLimit: { limit: 3, windowSeconds: 60 } });
    const claim = await host.claims.create({ scopeDir: host.alphaDir });
    const session = await client(host.url);
    await spendBudget(host.url, 3);
    const sessionId = (session.transport as { sessionId?: string } | undefined)?.sessionId ?? '';
    const refused = await fetch(host.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': sessionId,
        'mcp-protocol-version': '2025-06-18',
        'mcp-claim-code': claim.code,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
    });
    expect(refused.status).toBe(429);
    expect(await toolNames(session)).toEqual(ALL);
  });

  it('counts each principal separately', async () => {
    host = await startHost({
      claimFailureRateLimit: { limit: 2, windowSeconds: 60 },
      principalOf: (req) => `test:${String(req.headers['x-test-principal'])}`,
    });
    await spendBudget(host.url, 2, { 'x-test-principal': 'alice' });
    expect(
      (await initialize(host.url, { 'mcp-claim-code': 'HHH-HHH', 'x-test-principal': 'alice' })).status,
    ).toBe(429);
    expect(
      (await initialize(host.url, { 'mcp-claim-code': 'HHH-HHH', 'x-test-principal': 'bob' })).status,
    ).toBe(200);
  });

  it('opens a new budget when the window turns', async () => {
    host = await startHost({ claimFailureRateLimit: { limit: 2, windowSeconds: 60 } });
    host.clock.set(Date.parse('2026-01-01T00:00:00Z'));
    await spendBudget(host.url, 2);
    expect((await initialize(host.url, { 'mcp-claim-code': 'HHH-HHH' })).status).toBe(429);
    host.clock.advance(60_000);
    expect((await initialize(host.url, { 'mcp-claim-code': 'HHH-HHH' })).status).toBe(200);
  });

  it('lets a session repeat its code on every request, and a valid code open any number of sessions', async () => {
    host = await startHost({ claimFailureRateLimit: { limit: 2, windowSeconds: 60 } });
    const unknownCode = await client(host.url, 'JJJ-JJJ');
    for (let i = 0; i < 4; i++) expect(await toolNames(unknownCode)).toEqual(ALL);
    const claim = await host.claims.create({ scopeDir: host.alphaDir });
    for (let i = 0; i < 4; i++) expect(await toolNames(await client(host.url, claim.code))).toEqual(ALPHA);
  });

  it('is off by default: any number of guesses are looked up', async () => {
    host = await startHost();
    await spendBudget(host.url, GUESSES.length);
  });
});
