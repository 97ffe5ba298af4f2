import { StorageUnavailableError } from '@keyhold/core';
import { describe, expect, it } from 'vitest';
import { inProcessEndpoint, listToolsRequest, PUBLIC_URL, rpcResult } from './helpers.js';

/** The events of an SSE body, each as its `field: value` lines. */
function sseEvents(text: string): string[][] {
  return text
    .split('\n\n')
    .filter((event) => event.trim() !== '')
    .map((event) => event.split('\n'));
}

function callTool(name: string, args: Record<string, unknown>, protocolVersion: string): Request {
  return new Request(PUBLIC_URL, {
    method: 'POST',
    headers: {
      host: '127.0.0.1:8787',
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: 'Bearer alice-token',
      'mcp-protocol-version': protocolVersion,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
  });
}

describe('SSE answers at 2025-11-25 start with a priming event: an event id and a retry field (SEP-1699)', () => {
  it('the first event has an id, retry 1000 and empty data; the answer follows with its own id', async () => {
    const { endpoint } = inProcessEndpoint();
    const response = await endpoint.fetch(listToolsRequest({ 'mcp-protocol-version': '2025-11-25' }));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/text\/event-stream/);
    const events = sseEvents(await response.clone().text());
    expect(events[0]).toEqual([expect.stringMatching(/^id: \S+$/), 'retry: 1000', 'data: ']);
    expect(events[1]?.some((line) => /^id: \S+$/.test(line))).toBe(true);
    expect(events[1]?.find((line) => line.startsWith('id: '))).not.toBe(events[0]?.[0]);
    expect(((await rpcResult(response)).result as { tools: unknown[] }).tools.length).toBeGreaterThan(0);
  });

  it('older revisions get no priming event (clients before 2025-11-25 would take it as a message)', async () => {
    const { endpoint } = inProcessEndpoint();
    const response = await endpoint.fetch(listToolsRequest({ 'mcp-protocol-version': '2025-06-18' }));
    const events = sseEvents(await response.text());
    expect(events[0]?.some((line) => line.startsWith('retry:'))).toBe(false);
    expect(events[0]?.find((line) => line.startsWith('data: '))).toContain('"tools"');
  });

  it('a tool call that hits a storage outage still answers 503, not a stream already begun by the priming event', async () => {
    const { endpoint } = inProcessEndpoint({
      broker: {
        requestToken: async () => {
          throw new StorageUnavailableError('postgres', { retryAfterSeconds: 3 });
        },
      },
    });
    const response = await endpoint.fetch(callTool('list_repos', { owner: 'acme' }, '2025-11-25'));
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('3');
  });

  it('a GET (a 2025 reconnection with Last-Event-ID) is still 405: serving is stateless, nothing is replayed', async () => {
    const { endpoint } = inProcessEndpoint();
    const response = await endpoint.fetch(
      new Request(PUBLIC_URL, {
        method: 'GET',
        headers: {
          host: '127.0.0.1:8787',
          accept: 'text/event-stream',
          authorization: 'Bearer alice-token',
          'mcp-protocol-version': '2025-11-25',
          'last-event-id': '_1',
        },
      }),
    );
    expect(response.status).toBe(405);
  });
});
