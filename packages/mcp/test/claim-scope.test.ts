import { createClaimAttemptGate, createClaims, createMemoryClaimStore } from '@keyhold/claim-codes';
import { createMemoryRateLimiter } from '@keyhold/core';
import { afterEach, describe, expect, it } from 'vitest';
import { legacyClient, modernClient, ROOT, startEndpoint, type TestEndpoint } from './fixtures.js';
import { inProcessEndpoint, listToolsRequest, PUBLIC_URL, toolNames } from './helpers.js';

async function claimsWithCode(scopeDir: string) {
  const claims = createClaims({ store: createMemoryClaimStore() });
  const created = await claims.create({ scopeDir });
  return { claims, code: created.code };
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

  it('refuses a revoked code on the very next request (403), never widening to every tool', async () => {
    const { claims, code } = await claimsWithCode(`${ROOT}/workspace-a`);
    const { endpoint } = inProcessEndpoint({ claimCodes: { claims } });
    expect((await endpoint.fetch(listToolsRequest({ 'mcp-claim-code': code }))).status).toBe(200);
    await claims.revoke(code);
    const response = await endpoint.fetch(listToolsRequest({ 'mcp-claim-code': code }));
    expect(response.status).toBe(403);
  });

  it('refuses requests without a code when the host requires one', async () => {
    const { claims } = await claimsWithCode(`${ROOT}/workspace-a`);
    const { endpoint } = inProcessEndpoint({ claimCodes: { claims, requireClaimCode: true } });
    expect((await endpoint.fetch(listToolsRequest())).status).toBe(403);
  });

  it('counts guesses against the limiter: over the budget, 429 with Retry-After', async () => {
    const { claims } = await claimsWithCode(`${ROOT}/workspace-a`);
    const gate = createClaimAttemptGate(claims, {
      limiter: createMemoryRateLimiter(),
      limit: 3,
      windowSeconds: 60,
    });
    const { endpoint } = inProcessEndpoint({ claimCodes: { claims: gate.claims, attempts: gate } });
    const statuses: number[] = [];
    for (const guess of ['AAA-AAA', 'BBB-BBB', 'CCC-CCC', 'DDD-DDD']) {
      statuses.push((await endpoint.fetch(listToolsRequest({ 'mcp-claim-code': guess }))).status);
    }
    expect(statuses).toEqual([403, 403, 403, 429]);
    const limited = await endpoint.fetch(listToolsRequest({ 'mcp-claim-code': 'EEE-EEE' }));
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('keeps one budget per user AND client: one client guessing never makes another client of the same user wait', async () => {
    const { claims } = await claimsWithCode(`${ROOT}/workspace-a`);
    const gate = createClaimAttemptGate(claims, {
      limiter: createMemoryRateLimiter(),
      limit: 3,
      windowSeconds: 60,
    });
    const { endpoint } = inProcessEndpoint({ claimCodes: { claims: gate.claims, attempts: gate } });
    for (const guess of ['AAA-AAA', 'BBB-BBB', 'CCC-CCC', 'DDD-DDD']) {
      await endpoint.fetch(listToolsRequest({ 'mcp-claim-code': guess }));
    }
    expect((await endpoint.fetch(listToolsRequest({ 'mcp-claim-code': 'EEE-EEE' }))).status).toBe(429);
    // A new, valid code (never validated, so it spends budget) through Alice's other client is served.
    const fresh = await claims.create({ scopeDir: `${ROOT}/workspace-b` });
    const other = await endpoint.fetch(
      listToolsRequest({ 'mcp-claim-code': fresh.code, authorization: 'Bearer alice-other-client-token' }),
    );
    expect(other.status).toBe(200);
    expect(await toolNames(other)).toEqual(['list_repos']);
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
