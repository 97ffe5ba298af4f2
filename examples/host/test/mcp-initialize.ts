import { postMcpWithBearer } from '../../../test-support/mcp-tools-list.js';

/** What the `initialize` request says of its client, and the headers sent besides the bearer token. */
export interface InitializeOptions {
  readonly protocolVersion: string;
  readonly clientInfo: { readonly name: string; readonly version: string };
  readonly headers?: Record<string, string>;
}

/**
 * A raw MCP `initialize` POST to `mcpUrl` with `accessToken` as its bearer token, as a client without an SDK
 * sends it: for tests of what the endpoint answers a token (accepted, 401, 403) before any session exists.
 *
 * @example
 * ```ts
 * const response = await postInitialize(`${host.url}/tenant/demo/mcp`, token, {
 *   protocolVersion: '2025-11-25',
 *   clientInfo: { name: 'ci-job', version: '1' },
 * });
 * ```
 */
export function postInitialize(
  mcpUrl: string,
  accessToken: string,
  options: InitializeOptions,
): Promise<Response> {
  return postMcpWithBearer(
    mcpUrl,
    accessToken,
    {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: options.protocolVersion, capabilities: {}, clientInfo: options.clientInfo },
    },
    options.headers,
  );
}
