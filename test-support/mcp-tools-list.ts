// The first MCP calls a connected client makes, with a bearer token: `initialize` and `tools/list`. The host's
// tests and the conformance profiles send them to see whether a token is (still) accepted, so they live here once.

/**
 * Posts one JSON-RPC `message` to `mcpUrl` with `accessToken` as a bearer token (and `headers` besides),
 * accepting JSON or an SSE stream as a Streamable HTTP client does, and hands back the raw response (the
 * caller decides what status it expects).
 */
export function postMcpWithBearer(
  mcpUrl: string | URL,
  accessToken: string,
  message: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(mcpUrl, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${accessToken}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: JSON.stringify(message),
  });
}

/** `tools/list` by {@link postMcpWithBearer}. */
export function listToolsWithBearer(mcpUrl: string | URL, accessToken: string): Promise<Response> {
  return postMcpWithBearer(mcpUrl, accessToken, { jsonrpc: '2.0', id: 1, method: 'tools/list' });
}
