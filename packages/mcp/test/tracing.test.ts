import type { RequestOutcome } from '@keyhold/core';
import { afterEach, describe, expect, it } from 'vitest';
import { modernClient, startEndpoint, type TestEndpoint } from './fixtures.js';

let host: TestEndpoint | undefined;
afterEach(async () => {
  await host?.close();
  host = undefined;
});

describe('tracing: one span per HTTP request of the MCP endpoint', () => {
  it('starts a span per request named by its method and ends it with the status', async () => {
    const spans: { name: string; tenant: string; outcome?: RequestOutcome }[] = [];
    host = await startEndpoint(() => ({
      tracing: {
        start(name, tenant) {
          const span: { name: string; tenant: string; outcome?: RequestOutcome } = { name, tenant };
          spans.push(span);
          return (outcome) => {
            span.outcome = outcome;
          };
        },
      },
    }));
    const client = await modernClient(host.url, 'alice-token');
    await client.listTools();
    await client.close();
    const unauthenticated = await fetch(host.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{}',
    });
    expect(unauthenticated.status).toBe(401);
    expect(spans.length).toBeGreaterThanOrEqual(2);
    expect(spans.every((span) => span.name === 'post' && span.tenant === 'demo')).toBe(true);
    expect(spans.every((span) => span.outcome !== undefined)).toBe(true);
    expect(spans.at(-1)?.outcome?.status).toBe(401);
    expect(spans.some((span) => span.outcome?.status === 200)).toBe(true);
  });
});
