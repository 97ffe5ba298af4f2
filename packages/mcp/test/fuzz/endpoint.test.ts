import { createClaims, createMemoryClaimStore } from '@keyhold/claim-codes';
import * as fc from 'fast-check';
import { afterAll, beforeAll, describe, it } from 'vitest';
import {
  fuzzOptions,
  fuzzRuns,
  fuzzTimeoutMs,
  hostileForm,
  hostileString,
  percentEncode,
} from '../../../../test-support/fuzz.js';
import { ROOT, startEndpoint, type TestEndpoint } from '../fixtures.js';

/** Header values a client can put on the wire (fetch refuses the rest, as any HTTP client does). */
function sendable(value: string): string {
  return value.replace(/[^\t\x20-\x7e]/g, '').trim();
}

describe('fuzz: the MCP endpoint answers every request without a 5xx or an uncaught error', () => {
  let host: TestEndpoint;
  let code = '';
  const initialize = (version: string) =>
    JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: version,
        capabilities: { elicitation: { url: {} } },
        clientInfo: { name: 'f', version: '1' },
      },
    });

  beforeAll(async () => {
    const claims = createClaims({ store: createMemoryClaimStore() });
    code = (await claims.create({ scopeDir: `${ROOT}/workspace-a` })).code;
    host = await startEndpoint(() => ({ claimCodes: { claims } }));
  });
  afterAll(async () => {
    await host.close();
  });

  it(
    'any token, claim code (header or ?claim=), session id, requestState, era, method and body',
    async () => {
      const claim = fc.oneof(fc.constant(code), hostileString([code]));
      const token = fc.constantFrom(
        'alice-token',
        'machine-token',
        'no-scope-token',
        'forged',
        '',
        'outage-token',
      );
      const body = fc.oneof(
        fc.constantFrom(initialize('2025-11-25'), initialize('2025-06-18'), initialize('1999-01-01')),
        fc.jsonValue().map((value) => JSON.stringify(value)),
        fc.constantFrom(
          '{"jsonrpc":"2.0","id":2,"method":"tools/list"}',
          '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"<script>"}}}',
          '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"list_repos","arguments":{"owner":"a"}}}',
          '{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"list_repos","arguments":{"owner":"a"},"requestState":"v1.e30.AAAA","inputResponses":{"authorization":{"action":"accept"}},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"url":{}}},"io.modelcontextprotocol/clientInfo":{"name":"f","version":"1"}}}}',
          '{"jsonrpc":"2.0","id":6,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}',
          '[{"jsonrpc":"2.0"}]',
          '{',
        ),
        hostileString(),
      );
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom('POST', 'POST', 'POST', 'GET', 'DELETE', 'PUT'),
          token,
          fc.option(claim, { nil: undefined }),
          fc.constantFrom('header', 'query'),
          fc.option(hostileString(), { nil: undefined }),
          fc.constantFrom(undefined, '2025-11-25', '2026-07-28', 'garbage'),
          body,
          hostileForm(['claim', 'x']),
          async (method, bearer, presented, where, session, version, raw, extraQuery) => {
            const headers: Record<string, string> = {
              'content-type': 'application/json',
              accept: 'application/json, text/event-stream',
            };
            if (bearer !== '') headers['authorization'] = `Bearer ${bearer}`;
            let query = extraQuery;
            if (presented !== undefined && where === 'header' && sendable(presented) !== '') {
              headers['mcp-claim-code'] = sendable(presented);
            }
            if (presented !== undefined && where === 'query') query = `claim=${percentEncode(presented)}`;
            if (session !== undefined && sendable(session) !== '')
              headers['mcp-session-id'] = sendable(session);
            if (version !== undefined) headers['mcp-protocol-version'] = version;
            const controller = new AbortController();
            const response = await fetch(`${host.url}?${query}`, {
              method,
              headers,
              signal: controller.signal,
              ...(method === 'POST' || method === 'PUT' ? { body: raw } : {}),
            });
            if (!(response.headers.get('content-type') ?? '').includes('text/event-stream'))
              await response.text();
            controller.abort();
            // The verifier outage is the one 500 by design (never a 401 that would send a client to log in).
            if (response.status >= 500 && bearer !== 'outage-token') {
              throw new Error(`${method} answered ${response.status}`);
            }
          },
        ),
        fuzzOptions(Math.max(20, Math.floor(fuzzRuns() / 2))),
      );
    },
    fuzzTimeoutMs(20),
  );
});
