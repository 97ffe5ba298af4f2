import { randomToken } from '@keyhold/core';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ElicitationRequiredError } from './elicitation.js';

/**
 * What the broker needs to know about the MCP session that asked: its id (bound into the signed state), whether
 * the client declared URL-mode elicitation, and how to tell it an elicitation completed.
 *
 * @example
 * ```ts
 * const session: McpSessionHandle = { id: extra.sessionId ?? 'stdio', supportsUrlElicitation: false };
 * ```
 */
export interface McpSessionHandle {
  /** The `Mcp-Session-Id`, or any id stable for the life of the connection. */
  readonly id: string;
  /** `true` when the client declared the `elicitation.url` capability. */
  readonly supportsUrlElicitation: boolean;
  /**
   * Sends `notifications/elicitation/complete` for `elicitationId` to the client. Called after a successful
   * callback when the session is still in this process; a rejection (session gone) is logged and ignored.
   */
  notifyElicitationComplete?(elicitationId: string): Promise<void>;
}

const generatedIds = new WeakMap<Server, string>();

/**
 * Builds a {@link McpSessionHandle} from the SDK's low-level `Server` (an `McpServer`'s `.server`): the
 * capability comes from the client's `initialize`, the notification is the SDK's
 * `createElicitationCompletionNotifier`. Without a `sessionId` (stdio, in-memory transports) one random id is
 * kept per server.
 *
 * @example
 * ```ts
 * mcpServer.registerTool('repos', {}, async (_args, extra) => {
 *   const session = mcpSessionFromServer(mcpServer.server, extra.sessionId);
 * });
 * ```
 */
export function mcpSessionFromServer(server: Server, sessionId?: string): McpSessionHandle {
  let id = sessionId;
  if (id === undefined) {
    id = generatedIds.get(server) ?? randomToken(16);
    generatedIds.set(server, id);
  }
  return {
    id,
    get supportsUrlElicitation(): boolean {
      return server.getClientCapabilities()?.elicitation?.url !== undefined;
    },
    notifyElicitationComplete: (elicitationId) => server.createElicitationCompletionNotifier(elicitationId)(),
  };
}

/**
 * What an `McpServer` tool callback does with an error from `getToken`/`runWithAsks`: for an
 * {@link ElicitationRequiredError} it throws the SDK's `UrlElicitationRequiredError` (JSON-RPC -32042) when the
 * client supports URL elicitation, and otherwise returns a tool result carrying the link as text. Any other
 * error is rethrown unchanged.
 *
 * @example
 * ```ts
 * try { return await broker.runWithAsks(listRepos(args), context); }
 * catch (error) { return elicitationToolResponse(error, context.session); }
 * ```
 */
export function elicitationToolResponse(error: unknown, session: McpSessionHandle): CallToolResult {
  if (!(error instanceof ElicitationRequiredError)) throw error;
  if (session.supportsUrlElicitation) throw error.toMCPError();
  return error.toToolResult();
}
