import { createClaimAttemptGate, createClaims, createMemoryClaimStore } from '@keyhold/claim-codes';
import type { Logger } from '@keyhold/core';
import { createMemoryOnceStore, StorageUnavailableError } from '@keyhold/core';
import type { Client } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { modernClient, startEndpoint, type TestEndpoint, testResource } from './fixtures.js';
import { inProcessEndpoint, listToolsRequest, PUBLIC_URL } from './helpers.js';

function recordingLogger(): { logger: Logger; warnings: Record<string, unknown>[] } {
  const warnings: Record<string, unknown>[] = [];
  const ignore = () => {};
  return {
    logger: { debug: ignore, info: ignore, warn: (fields) => warnings.push(fields), error: ignore },
    warnings,
  };
}

const outage = () => new StorageUnavailableError('postgres', { retryAfterSeconds: 3 });

async function expectServiceUnavailable(response: Response): Promise<void> {
  expect(response.status).toBe(503);
  expect(response.headers.get('retry-after')).toBe('3');
  expect(response.headers.get('cache-control')).toBe('no-store');
  expect(response.headers.get('www-authenticate')).toBeNull();
  expect(await response.json()).toEqual({
    jsonrpc: '2.0',
    error: { code: -32603, message: 'Service temporarily unavailable' },
    id: null,
  });
}

function callTool(name: string, args: Record<string, unknown>): Request {
  return new Request(PUBLIC_URL, {
    method: 'POST',
    headers: {
      host: '127.0.0.1:8787',
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: 'Bearer alice-token',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
  });
}

describe('outage: authentication that cannot reach storage answers 503 JSON-RPC, never 401', () => {
  it('a resource throwing StorageUnavailableError: 503, Retry-After, no challenge, one warn line', async () => {
    const { logger, warnings } = recordingLogger();
    const resource = testResource({ now: () => Date.now() }, PUBLIC_URL);
    const { endpoint } = inProcessEndpoint({
      logger,
      resource: {
        ...resource,
        verify: async () => {
          throw outage();
        },
      },
    });
    await expectServiceUnavailable(await endpoint.fetch(listToolsRequest()));
    expect(warnings).toEqual([
      expect.objectContaining({ event: 'storage_unavailable', component: 'postgres', endpoint: 'mcp' }),
    ]);
    expect(JSON.stringify(warnings)).not.toContain('alice-token');
  });

  it('the bearer policy meeting an outage answers 503, and a refused token still a 401', async () => {
    const { endpoint } = inProcessEndpoint();
    await expectServiceUnavailable(
      await endpoint.fetch(listToolsRequest({ authorization: 'Bearer outage-token' })),
    );
    expect((await endpoint.fetch(listToolsRequest({ authorization: 'Bearer unknown' }))).status).toBe(401);
  });
});

describe('outage: the claim-code check that cannot reach storage answers 503', () => {
  it('claims.validate throwing StorageUnavailableError: 503 JSON-RPC', async () => {
    const { endpoint } = inProcessEndpoint({
      claimCodes: {
        claims: {
          validate: async () => {
            throw outage();
          },
        },
      } as never,
    });
    await expectServiceUnavailable(
      await endpoint.fetch(listToolsRequest({ 'mcp-claim-code': 'c'.repeat(20) })),
    );
  });
});

describe('outage: the claim-code attempt limiter (claim-codes) that cannot reach its store answers 503', () => {
  it('a real claim-attempt gate whose limiter throws StorageUnavailableError: 503, the code not spent', async () => {
    const claims = createClaims({ store: createMemoryClaimStore() });
    const { code } = await claims.create({ scopeDir: '/tmp' });
    const gate = createClaimAttemptGate(claims, {
      limiter: {
        increment: async () => {
          throw outage();
        },
        reset: async () => {},
      },
    });
    const { endpoint } = inProcessEndpoint({ claimCodes: { claims: gate.claims, attempts: gate } });
    await expectServiceUnavailable(await endpoint.fetch(listToolsRequest({ 'mcp-claim-code': code })));
    expect((await claims.validate(code)).ok).toBe(true);
  });
});

describe('outage: a tool call whose storage access fails answers 503, not a 200 tool error', () => {
  it('the broker throwing StorageUnavailableError during a brokered ask: 503 JSON-RPC with Retry-After', async () => {
    const { logger, warnings } = recordingLogger();
    const { endpoint } = inProcessEndpoint({
      logger,
      broker: {
        requestToken: async () => {
          throw outage();
        },
      },
    });
    await expectServiceUnavailable(await endpoint.fetch(callTool('list_repos', { owner: 'acme' })));
    expect(warnings.filter((fields) => fields['event'] === 'storage_unavailable')).toHaveLength(1);
  });

  it('the same call with the broker back answers 200 and streams its result', async () => {
    const { endpoint } = inProcessEndpoint();
    const response = await endpoint.fetch(callTool('echo', { text: 'hi' }));
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('hi');
  });
});

describe('outage: the requestState single-use check that cannot reach its store answers 503', () => {
  let host: TestEndpoint | undefined;
  const clients: Client[] = [];
  afterEach(async () => {
    for (const client of clients.splice(0)) await client.close();
    await host?.close();
    host = undefined;
  });

  it('a 2026-07-28 retry whose requestState cannot be marked spent: HTTP 503, not "invalid requestState"', async () => {
    let down = false;
    const lines: { level: string; fields: Record<string, unknown> }[] = [];
    const at = (level: string) => (fields: Record<string, unknown>) => lines.push({ level, fields });
    host = await startEndpoint(() => {
      const store = createMemoryOnceStore();
      return {
        logger: { debug: () => {}, info: () => {}, warn: at('warn'), error: at('error') },
        onceStore: {
          consume: async (key: string, expiresAt: number, now: number) => {
            if (down) throw outage();
            return store.consume(key, expiresAt, now);
          },
          release: (key: string) => store.release(key),
        },
      };
    });
    const client = await modernClient(host.url, 'alice-token', { autoFulfill: false });
    clients.push(client);
    const call = { name: 'list_repos', arguments: { owner: 'acme' } };
    const first = (await client.callTool(call, { allowInputRequired: true } as never)) as unknown as {
      inputRequests: Record<string, { params: { url: string } }>;
      requestState: string;
    };
    host.broker.authorize(first.inputRequests['authorization']?.params.url ?? '');
    down = true;
    const retry = client.callTool(
      {
        ...call,
        inputResponses: { authorization: { action: 'accept' } },
        requestState: first.requestState,
      } as never,
      { allowInputRequired: true } as never,
    );
    await expect(retry).rejects.toThrow(/"code":-32603,"message":"Service temporarily unavailable"/);
    expect(lines).toEqual([
      {
        level: 'warn',
        fields: expect.objectContaining({
          event: 'storage_unavailable',
          component: 'postgres',
          endpoint: 'mcp',
        }),
      },
    ]);
  });
});
