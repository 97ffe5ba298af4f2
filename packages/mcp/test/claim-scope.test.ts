import { createClaimAttemptGate, createClaims, createMemoryClaimStore } from '@keyhold/claim-codes';
import { createManualClock, createMemoryRateLimiter, type Logger } from '@keyhold/core';
import { afterEach, describe, expect, it } from 'vitest';
import { legacyClient, modernClient, ROOT, startEndpoint, type TestEndpoint } from './fixtures.js';
import { inProcessEndpoint, listToolsRequest, PUBLIC_URL, toolNames } from './helpers.js';

async function claimsWithCode(scopeDir: string) {
  const claims = createClaims({ store: createMemoryClaimStore() });
  const created = await claims.create({ scopeDir });
  return { claims, code: created.code };
}

function recordingLogger(): { logger: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const record = (fields: Record<string, unknown>) => lines.push(fields);
  return { logger: { debug: record, info: record, warn: record, error: record }, lines };
}

function guessGate(claims: Awaited<ReturnType<typeof claimsWithCode>>['claims']) {
  return createClaimAttemptGate(claims, { limiter: createMemoryRateLimiter(), limit: 3, windowSeconds: 60 });
}

let host: TestEndpoint | undefined;
afterEach(async () => {
  await host?.close();
  host = undefined;
});

describe('claim codes narrow every request of either era to one directory', () => {
  it('lists only the tool modules under the claim directory (Mcp-Claim-Code header)', async () => {
    const { claims, code } = await claimsWithCode(`${ROOT}/workspace-a`);
    const { endpoint } = inProcessEndpoint({ claimCodes: { claims } });
    expect(await toolNames(await endpoint.fetch(listToolsRequest({ 'mcp-claim-code': code })))).toEqual([
      'echo',
    ]);
    expect(await toolNames(await endpoint.fetch(listToolsRequest()))).toEqual(['echo', 'list_repos']);
  });

  it('reads the claim query parameter for clients that cannot set headers', async () => {
    const { claims, code } = await claimsWithCode(`${ROOT}/workspace-b`);
    const { endpoint } = inProcessEndpoint({ claimCodes: { claims } });
    const response = await endpoint.fetch(
      listToolsRequest({}, `${PUBLIC_URL}?claim=${encodeURIComponent(code)}`),
    );
    expect(await toolNames(response)).toEqual(['list_repos']);
  });

  it('refuses requests without a code when the host requires one', async () => {
    const { claims } = await claimsWithCode(`${ROOT}/workspace-a`);
    const { endpoint } = inProcessEndpoint({ claimCodes: { claims, requireClaimCode: true } });
    expect((await endpoint.fetch(listToolsRequest())).status).toBe(403);
    // Requiring a code means a valid one: an invalid code is refused too, whatever onInvalid says.
    const guessed = await endpoint.fetch(listToolsRequest({ 'mcp-claim-code': 'AAA-AAA' }));
    expect(guessed.status).toBe(403);
  });

  it('refuses a call to a tool outside the claim as an unknown tool', async () => {
    const { claims, code } = await claimsWithCode(`${ROOT}/workspace-a`);
    host = await startEndpoint(() => ({ claimCodes: { claims } }));
    const client = await modernClient(host.url, 'alice-token', { headers: { 'Mcp-Claim-Code': code } });
    const outcome = await client.callTool({ name: 'list_repos', arguments: { owner: 'acme' } }).then(
      (result) => result,
      (error: unknown) => error,
    );
    expect(JSON.stringify(outcome instanceof Error ? outcome.message : outcome)).toMatch(/list_repos/);
    expect(outcome instanceof Error || (outcome as { isError?: boolean }).isError === true).toBe(true);
    await client.close();
  });

  it('narrows the SDK v2 client (2026-07-28) and the SDK v1 client (2025-11-25) alike', async () => {
    const { claims, code } = await claimsWithCode(`${ROOT}/workspace-a`);
    host = await startEndpoint(() => ({ claimCodes: { claims } }));
    const modern = await modernClient(host.url, 'alice-token', { headers: { 'Mcp-Claim-Code': code } });
    expect((await modern.listTools()).tools.map((tool) => tool.name)).toEqual(['echo']);
    const legacy = await legacyClient(host.url, 'alice-token', { headers: { 'Mcp-Claim-Code': code } });
    expect((await legacy.listTools()).tools.map((tool) => tool.name)).toEqual(['echo']);
    await modern.close();
    await legacy.close();
  });
});

describe('a presented code that is not valid serves the request unscoped by default (the specification: "it is not an error")', () => {
  it('serves an unknown code like no code: every tool module, 200', async () => {
    const { claims } = await claimsWithCode(`${ROOT}/workspace-a`);
    const { endpoint } = inProcessEndpoint({ claimCodes: { claims } });
    const response = await endpoint.fetch(listToolsRequest({ 'mcp-claim-code': 'ZZZ-ZZZ' }));
    expect(response.status).toBe(200);
    expect(await toolNames(response)).toEqual(['echo', 'list_repos']);
  });

  it('serves a revoked code unscoped on the very next request', async () => {
    const { claims, code } = await claimsWithCode(`${ROOT}/workspace-a`);
    const { endpoint } = inProcessEndpoint({ claimCodes: { claims } });
    expect(await toolNames(await endpoint.fetch(listToolsRequest({ 'mcp-claim-code': code })))).toEqual([
      'echo',
    ]);
    await claims.revoke(code);
    const response = await endpoint.fetch(listToolsRequest({ 'mcp-claim-code': code }));
    expect(response.status).toBe(200);
    expect(await toolNames(response)).toEqual(['echo', 'list_repos']);
  });

  it('serves an expired code unscoped', async () => {
    const clock = createManualClock(Date.now());
    const claims = createClaims({ store: createMemoryClaimStore(), clock });
    const created = await claims.create({ scopeDir: `${ROOT}/workspace-a`, ttlSeconds: 60 });
    const { logger, lines } = recordingLogger();
    const { endpoint } = inProcessEndpoint({ claimCodes: { claims }, logger });
    const headers = { 'mcp-claim-code': created.code };
    expect(await toolNames(await endpoint.fetch(listToolsRequest(headers)))).toEqual(['echo']);
    clock.advance(61_000);
    const response = await endpoint.fetch(listToolsRequest(headers));
    expect(response.status).toBe(200);
    expect(await toolNames(response)).toEqual(['echo', 'list_repos']);
    expect(lines.find((fields) => fields.event === 'claim_code_invalid')).toMatchObject({
      reason: 'expired',
    });
  });

  it('logs the presented invalid code as such (reason and action), never the code itself', async () => {
    const { claims } = await claimsWithCode(`${ROOT}/workspace-a`);
    const { logger, lines } = recordingLogger();
    const { endpoint } = inProcessEndpoint({ claimCodes: { claims }, logger });
    await endpoint.fetch(listToolsRequest({ 'mcp-claim-code': 'QQQ-QQQ' }));
    const line = lines.find((fields) => fields.event === 'claim_code_invalid');
    expect(line).toMatchObject({ reason: 'unknown', action: 'unscoped' });
    expect(JSON.stringify(lines)).not.toMatch(/QQQ/);
  });

  it('still spends the guess budget: over it, 429 with Retry-After', async () => {
    const { claims } = await claimsWithCode(`${ROOT}/workspace-a`);
    const gate = guessGate(claims);
    const { endpoint } = inProcessEndpoint({ claimCodes: { claims: gate.claims, attempts: gate } });
    const statuses: number[] = [];
    for (const guess of ['AAA-AAA', 'BBB-BBB', 'CCC-CCC', 'DDD-DDD']) {
      statuses.push((await endpoint.fetch(listToolsRequest({ 'mcp-claim-code': guess }))).status);
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    const limited = await endpoint.fetch(listToolsRequest({ 'mcp-claim-code': 'EEE-EEE' }));
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

describe("onInvalid: 'refuse' keeps a narrowed client narrowed: a code that is not valid is refused (403)", () => {
  it('refuses a revoked code on the very next request, never widening to every tool', async () => {
    const { claims, code } = await claimsWithCode(`${ROOT}/workspace-a`);
    const { endpoint } = inProcessEndpoint({ claimCodes: { claims, onInvalid: 'refuse' } });
    expect((await endpoint.fetch(listToolsRequest({ 'mcp-claim-code': code }))).status).toBe(200);
    await claims.revoke(code);
    const response = await endpoint.fetch(listToolsRequest({ 'mcp-claim-code': code }));
    expect(response.status).toBe(403);
  });

  it('logs the refusal as an invalid code with action refused', async () => {
    const { claims } = await claimsWithCode(`${ROOT}/workspace-a`);
    const { logger, lines } = recordingLogger();
    const { endpoint } = inProcessEndpoint({ claimCodes: { claims, onInvalid: 'refuse' }, logger });
    expect((await endpoint.fetch(listToolsRequest({ 'mcp-claim-code': 'QQQ-QQQ' }))).status).toBe(403);
    expect(lines.find((fields) => fields.event === 'claim_code_invalid')).toMatchObject({
      reason: 'unknown',
      action: 'refused',
    });
  });

  it('counts guesses against the limiter: over the budget, 429 with Retry-After', async () => {
    const { claims } = await claimsWithCode(`${ROOT}/workspace-a`);
    const gate = guessGate(claims);
    const { endpoint } = inProcessEndpoint({
      claimCodes: { claims: gate.claims, attempts: gate, onInvalid: 'refuse' },
    });
    const statuses: number[] = [];
    for (const guess of ['AAA-AAA', 'BBB-BBB', 'CCC-CCC', 'DDD-DDD']) {
      statuses.push((await endpoint.fetch(listToolsRequest({ 'mcp-claim-code': guess }))).status);
    }
    expect(statuses).toEqual([403, 403, 403, 429]);
  });

  it('rejects any other onInvalid value at creation', async () => {
    const { claims } = await claimsWithCode(`${ROOT}/workspace-a`);
    expect(() => inProcessEndpoint({ claimCodes: { claims, onInvalid: 'ignore' as never } })).toThrow(
      /onInvalid/,
    );
  });
});
