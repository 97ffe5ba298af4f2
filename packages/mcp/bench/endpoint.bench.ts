import { createClaims, createMemoryClaimStore } from '@keyhold/claim-codes';
import { bench, describe } from 'vitest';
import { ROOT } from '../test/fixtures.js';
import { inProcessEndpoint, PUBLIC_URL } from '../test/helpers.js';

// Requests per second of `endpoint.fetch`, called in process (no sockets, no adapter): everything a
// request costs here is the endpoint's own work, Host/Origin, bearer check (a fake verifier answering at
// once), claim code, a fresh McpServer with its tools and the SDK's serving, plus reading the body.
// The memory figure of issue 15 comes from test/memory/flat-memory-child.mjs (see BENCHMARKS.md).

const claims = createClaims({ store: createMemoryClaimStore() });
const claimCode = (await claims.create({ scopeDir: `${ROOT}/workspace-a` })).code;
const { endpoint } = inProcessEndpoint({ claimCodes: { claims } });

const common = {
  host: '127.0.0.1:8787',
  accept: 'application/json, text/event-stream',
  'content-type': 'application/json',
  authorization: 'Bearer alice-token',
};

/** A 2025-11-25 tools/call as SDK v1 sends it after initialize (stateless: no initialize needed here). */
function legacyCall(): Request {
  return new Request(PUBLIC_URL, {
    method: 'POST',
    headers: { ...common, 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: 'hi' } },
    }),
  });
}

/** A 2026-07-28 tools/call as SDK v2 pinned to it sends it: the `_meta` envelope and the MCP-* headers. */
function modernCall(): Request {
  return new Request(PUBLIC_URL, {
    method: 'POST',
    headers: {
      ...common,
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': 'echo',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name: 'echo',
        arguments: { text: 'hi' },
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'bench-client', version: '1.0.0' },
          'io.modelcontextprotocol/clientCapabilities': { elicitation: { url: {} } },
        },
      },
    }),
  });
}

/** A 2026-07-28 tools/list narrowed by a claim code (only the tool module under its directory). */
function claimedList(): Request {
  return new Request(PUBLIC_URL, {
    method: 'POST',
    headers: {
      ...common,
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/list',
      'mcp-claim-code': claimCode,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/list',
      params: {
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'bench-client', version: '1.0.0' },
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    }),
  });
}

async function serve(request: Request, expected: string): Promise<void> {
  const response = await endpoint.fetch(request);
  const text = await response.text();
  if (response.status !== 200 || !text.includes(expected)) {
    throw new Error(`unexpected answer ${response.status}: ${text.slice(0, 200)}`);
  }
}

// Checked once before timing: a benchmark of refusals would measure nothing useful.
await serve(legacyCall(), 'hi (legacy, alice)');
await serve(modernCall(), 'hi (modern, alice)');
await serve(claimedList(), '"echo"');
if ((await (await endpoint.fetch(claimedList())).text()).includes('list_repos')) {
  throw new Error('the claim code did not narrow tools/list');
}

// Longer than the default half second: a request takes a few hundred µs and the collector runs often.
const options = { time: 2_000, warmupTime: 500 };

describe('endpoint.fetch, in process', () => {
  bench(
    '2025-era tools/call (echo, SSE answer)',
    async () => {
      await serve(legacyCall(), 'hi (legacy, alice)');
    },
    options,
  );

  bench(
    '2026-07-28 tools/call (echo, envelope)',
    async () => {
      await serve(modernCall(), 'hi (modern, alice)');
    },
    options,
  );

  bench(
    '2026-07-28 tools/list with a claim code',
    async () => {
      await serve(claimedList(), '"echo"');
    },
    options,
  );
});
