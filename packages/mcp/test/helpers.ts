import { createManualClock, type ManualClock } from '@keyhold/core';
import { createMcpEndpoint, type McpEndpoint, type McpEndpointOptions } from '../src/index.js';
import { fakeBroker, github, notes, SECRET, testResource } from './fixtures.js';

export const PUBLIC_URL = 'http://127.0.0.1:8787/mcp';

/** An endpoint called in process through `fetch`, for rules that need no real client. */
export function inProcessEndpoint(overrides: Partial<McpEndpointOptions> = {}): {
  endpoint: McpEndpoint;
  clock: ManualClock;
} {
  const clock = createManualClock(Date.now());
  const endpoint = createMcpEndpoint({
    resource: testResource(clock, PUBLIC_URL),
    serverInfo: { name: 'test-host', version: '1.0.0' },
    toolModules: [notes, github],
    broker: fakeBroker(),
    requestStateSecret: SECRET,
    clock,
    ...overrides,
  });
  return { endpoint, clock };
}

/** A 2025-era `tools/list` POST (no initialize needed: legacy serving is stateless). */
export function listToolsRequest(headers: Record<string, string> = {}, url: string = PUBLIC_URL): Request {
  return new Request(url, {
    method: 'POST',
    headers: {
      host: '127.0.0.1:8787',
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: 'Bearer alice-token',
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
  });
}

/** The JSON-RPC result of a response, SSE or JSON. */
export async function rpcResult(response: Response): Promise<Record<string, unknown>> {
  const text = await response.text();
  const json = response.headers.get('content-type')?.includes('text/event-stream')
    ? text
        .split('\n')
        .filter((line) => line.startsWith('data: '))
        .map((line) => line.slice(6))
        .join('')
    : text;
  return JSON.parse(json) as Record<string, unknown>;
}

export async function toolNames(response: Response): Promise<string[]> {
  const body = await rpcResult(response);
  const result = body['result'] as { tools: { name: string }[] };
  return result.tools.map((tool) => tool.name).sort();
}
