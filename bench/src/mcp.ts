// The MCP scenario's request and the checks made before it is measured: one 2026-07-28 `tools/call` of the
// example host's `list_notes` tool, as an MCP SDK v2 client sends it, to the host (with a bearer token) and to
// the MCP SDK v2 serving the same tool with no authorization (`servers/mcp-sdk.ts`).
import type { RequestPlan } from './load.js';
import type { Listening } from './servers/common.js';

/** The protocol version SDK v2 clients pin, and the one both targets are measured with. */
export const MCP_PROTOCOL_VERSION = '2026-07-28';

/**
 * The tool both targets serve: the example host's `list_notes` (`examples/host/src/tool-modules.ts`), no
 * arguments. On a fresh host there are no notes, so it answers the text `[]`.
 *
 * @example
 * ```ts
 * server.registerTool(LIST_NOTES.name, { description: LIST_NOTES.description }, handler);
 * ```
 */
export const LIST_NOTES = {
  name: 'list_notes',
  description: 'Lists the notes, including those received by webhook.',
  /** What a tool without an input schema lists (the SDK fills it in for the host and the reference alike). */
  inputSchema: { type: 'object', properties: {} },
  /** The `content` of a call on an empty store. */
  emptyContent: [{ type: 'text', text: '[]' }],
} as const;

/**
 * The client the request envelope names (an SDK v2 client sends its `clientInfo` on every request).
 *
 * @example
 * ```ts
 * const client = new Client(MCP_CLIENT_INFO, { versionNegotiation: { mode: { pin: MCP_PROTOCOL_VERSION } } });
 * ```
 */
export const MCP_CLIENT_INFO = { name: 'keyhold-bench', version: '1.0.0' } as const;

/** A 2026-07-28 JSON-RPC request body with the per-request `_meta` envelope, keys in the SDK client's order. */
function envelope(method: string, params: Record<string, unknown>, id: number): string {
  return JSON.stringify({
    method,
    params: {
      ...params,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': MCP_PROTOCOL_VERSION,
        'io.modelcontextprotocol/clientInfo': MCP_CLIENT_INFO,
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    },
    jsonrpc: '2.0',
    id,
  });
}

/**
 * The headers an SDK v2 client's transport (`StreamableHTTPClientTransport` of `@modelcontextprotocol/client`)
 * sends with a 2026-07-28 request, as `test/mcp.test.ts` captures from a real one. Left out: what autocannon
 * adds itself (`host`, `connection`, `content-length`) and the defaults of Node's fetch (`user-agent`,
 * `accept-language`, `accept-encoding`, `sec-fetch-mode`), which vary with the Node version and which
 * neither server reads.
 */
function headers(
  method: string,
  name: string | undefined,
  bearer: string | undefined,
): Record<string, string> {
  return {
    ...(bearer === undefined ? {} : { authorization: `Bearer ${bearer}` }),
    'mcp-protocol-version': MCP_PROTOCOL_VERSION,
    'mcp-method': method,
    ...(name === undefined ? {} : { 'mcp-name': name }),
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  };
}

/**
 * The measured request: `tools/call` of `list_notes` at `path`, with `bearer` as the access token (none for
 * the reference without authorization).
 *
 * @example
 * ```ts
 * const plan = mcpToolCall('/tenant/demo/mcp', token);
 * ```
 */
export function mcpToolCall(path: string, bearer?: string): RequestPlan {
  return {
    method: 'POST',
    path,
    headers: headers('tools/call', LIST_NOTES.name, bearer),
    body: envelope('tools/call', { name: LIST_NOTES.name, arguments: {} }, 0),
  };
}

/** The JSON-RPC message of an answer: a JSON body, or the first `data:` event of an SSE body. */
function message(contentType: string, body: string): { result?: Record<string, unknown>; error?: unknown } {
  if (!contentType.includes('text/event-stream')) return JSON.parse(body);
  const data = body.split('\n').find((line) => line.startsWith('data: ') && line.length > 'data: '.length);
  if (data === undefined) throw new Error(`an event stream without a message: ${body.slice(0, 200)}`);
  return JSON.parse(data.slice('data: '.length));
}

async function send(
  target: Listening,
  path: string,
  init: { headers: Record<string, string>; body: string },
): Promise<{ result?: Record<string, unknown>; error?: unknown }> {
  const response = await fetch(`${target.url}${path}`, { method: 'POST', ...init });
  const body = await response.text();
  if (response.status !== 200) {
    throw new Error(`${target.url}${path} answered ${response.status}: ${body.slice(0, 300)}`);
  }
  return message(response.headers.get('content-type') ?? '', body);
}

/**
 * Checks, before the load, that a target lists `list_notes` as {@link LIST_NOTES} describes it and answers
 * the measured call with 200 and the empty list; throws (failing the run) otherwise. Both targets are held to
 * the same constants, so they serve the same tool.
 *
 * @example
 * ```ts
 * await checkMcpToolCall(running.announcement, '/mcp');
 * ```
 */
export async function checkMcpToolCall(target: Listening, path: string, bearer?: string): Promise<void> {
  const listed = await send(target, path, {
    headers: headers('tools/list', undefined, bearer),
    body: envelope('tools/list', {}, 1),
  });
  const tools = (listed.result?.['tools'] ?? []) as { name?: string }[];
  const tool = tools.find((candidate) => candidate.name === LIST_NOTES.name);
  const expected = {
    name: LIST_NOTES.name,
    description: LIST_NOTES.description,
    inputSchema: LIST_NOTES.inputSchema,
  };
  if (JSON.stringify(tool) !== JSON.stringify(expected)) {
    throw new Error(
      `${target.url}${path} lists ${JSON.stringify(tool ?? listed)}, not ${JSON.stringify(expected)}`,
    );
  }
  const plan = mcpToolCall(path, bearer);
  const called = await send(target, path, {
    headers: plan.headers as Record<string, string>,
    body: plan.body as string,
  });
  const content = called.result?.['content'];
  if (
    called.result?.['isError'] === true ||
    JSON.stringify(content) !== JSON.stringify(LIST_NOTES.emptyContent)
  ) {
    throw new Error(`${target.url}${path} answered the call with ${JSON.stringify(called)}`);
  }
}
