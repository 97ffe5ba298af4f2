import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import * as fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  fuzzOptions,
  fuzzRuns,
  fuzzTimeoutMs,
  hostileForm,
  hostileString,
  percentEncode,
} from '../../../../test-support/fuzz.js';
import { createClaims } from '../../src/claims.js';
import {
  CLAIM_CODE_ALPHABET,
  CLAIM_CODE_LENGTH,
  formatClaimCode,
  normalizeClaimCode,
} from '../../src/code.js';
import { createScopedMcpHandler, type ScopedMcpHandler } from '../../src/mcp/node-handler.js';
import { createMemoryClaimStore } from '../../src/memory-store.js';
import { toolModuleTree } from '../mcp/host-fixture.js';

describe('fuzz: normalizeClaimCode never throws; what it accepts is a stored-form code', () => {
  it(
    'answers any input with a code of the alphabet or a reason and a message without control characters',
    () => {
      const typed = fc
        .array(fc.constantFrom(...`${CLAIM_CODE_ALPHABET}${CLAIM_CODE_ALPHABET.toLowerCase()}- 0OIl1`), {
          maxLength: 10,
        })
        .map((chars) => chars.join(''));
      fc.assert(
        fc.property(fc.oneof(typed, hostileString()), (input) => {
          const result = normalizeClaimCode(input);
          if (result.ok) {
            expect(result.code).toHaveLength(CLAIM_CODE_LENGTH);
            for (const character of result.code) expect(CLAIM_CODE_ALPHABET).toContain(character);
            expect(normalizeClaimCode(formatClaimCode(result.code))).toEqual(result);
          } else {
            const controls = [...result.message].filter(
              (c) => (c.codePointAt(0) ?? 0) < 0x20 || c === '\u007f',
            );
            expect(controls).toEqual([]);
          }
        }),
        fuzzOptions(),
      );
    },
    fuzzTimeoutMs(),
  );
});

/** Header values a client can put on the wire (fetch refuses the rest, as any HTTP client does). */
function sendable(value: string): string {
  return value.replace(/[^\t\x20-\x7e]/g, '').trim();
}

describe('fuzz: the claim-scoped MCP handler answers every request without rejecting or a 5xx', () => {
  let server: Server;
  let url: string;
  let mcp: ScopedMcpHandler;
  const rejections: unknown[] = [];
  let code = '';
  let sessionId = '';

  beforeAll(async () => {
    const tree = toolModuleTree();
    const claims = createClaims({ store: createMemoryClaimStore() });
    code = (await claims.create({ scopeDir: tree.alphaDir })).code;
    mcp = createScopedMcpHandler({
      claims,
      modules: tree.modules,
      createServer: () => new McpServer({ name: 'fuzz', version: '1' }),
    });
    server = createServer((req, res) => {
      mcp.handle(req, res).catch((error: unknown) => rejections.push(error));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
    const init = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify(initialize()),
    });
    sessionId = init.headers.get('mcp-session-id') ?? '';
    await init.text();
  });
  afterAll(async () => {
    await mcp.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  function initialize(): Record<string, unknown> {
    return {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'fuzz', version: '1' } },
    };
  }

  it(
    'any claim code (header or ?claim=), session id, method and body',
    async () => {
      const claim = fc.oneof(
        fc.constant(code),
        fc.constant(formatClaimCode(code).toLowerCase()),
        hostileString([code]),
      );
      const body = fc.oneof(
        fc.constant(JSON.stringify(initialize())),
        fc.jsonValue().map((value) => JSON.stringify(value)),
        fc.constantFrom(
          '{"jsonrpc":"2.0","id":2,"method":"tools/list"}',
          '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"alpha_echo","arguments":{"text":"<script>"}}}',
          '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"beta_echo","arguments":{}}}',
          '[{"jsonrpc":"2.0"}]',
          '{',
        ),
        hostileString(),
      );
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom('POST', 'POST', 'POST', 'GET', 'DELETE', 'PUT'),
          fc.option(claim, { nil: undefined }),
          fc.constantFrom('header', 'query'),
          fc.option(fc.oneof(fc.constant(sessionId), hostileString([sessionId])), { nil: undefined }),
          body,
          hostileForm(['claim', 'x']),
          async (method, presented, where, session, raw, extraQuery) => {
            const headers: Record<string, string> = {
              'content-type': 'application/json',
              accept: 'application/json, text/event-stream',
            };
            let query = extraQuery;
            if (presented !== undefined && where === 'header' && sendable(presented) !== '') {
              headers['mcp-claim-code'] = sendable(presented);
            }
            if (presented !== undefined && where === 'query') query = `claim=${percentEncode(presented)}`;
            if (session !== undefined && sendable(session) !== '')
              headers['mcp-session-id'] = sendable(session);
            const controller = new AbortController();
            const response = await fetch(`${url}?${query}`, {
              method,
              headers,
              signal: controller.signal,
              ...(method === 'POST' || method === 'PUT' ? { body: raw } : {}),
            });
            // A GET on a live session opens the SSE stream: the status is what matters.
            if (!(response.headers.get('content-type') ?? '').includes('text/event-stream'))
              await response.text();
            controller.abort();
            if (response.status >= 500) throw new Error(`${method} answered ${response.status}`);
          },
        ),
        fuzzOptions(Math.max(20, Math.floor(fuzzRuns() / 2))),
      );
      expect(rejections).toEqual([]);
    },
    fuzzTimeoutMs(20),
  );
});
