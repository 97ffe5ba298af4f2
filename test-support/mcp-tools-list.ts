// The first MCP call a connected client makes: `tools/list` with a bearer token. The host's tests and the
// conformance profiles send it to see whether a token is (still) accepted, so it lives here once.

/**
 * Posts `tools/list` to `mcpUrl` with `accessToken` as a bearer token, accepting JSON or an SSE stream as
 * a Streamable HTTP client does, and hands back the raw response (the caller decides what status it expects).
 */
export function listToolsWithBearer(mcpUrl: string | URL, accessToken: string): Promise<Response> {
  return fetch(mcpUrl, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${accessToken}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
}
