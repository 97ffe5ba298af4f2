import type { ModuleTool, ToolCallExtra } from '@keyhold/claim-codes/mcp';
import type { McpSessionHandle, TokenBroker } from '@keyhold/token-vault';
import { elicitationToolResponse } from '@keyhold/token-vault';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Activity } from '../tools/workspace-b/activity.js';

/**
 * Finds the MCP server of a session, so a tool can tell whether the client can show URL elicitations and
 * can notify it when the user finishes the browser step. The scoped MCP handler creates one server per
 * session; they are remembered here until they close.
 */
export interface SessionServers {
  track(server: McpServer): McpServer;
  handle(extra: ToolCallExtra): McpSessionHandle;
}

export function createSessionServers(): SessionServers {
  const servers = new Set<McpServer>();
  return {
    track(server) {
      servers.add(server);
      server.server.onclose = () => servers.delete(server);
      return server;
    },
    handle(extra) {
      const id = extra.sessionId ?? 'stateless';
      const server = [...servers].find((candidate) => candidate.server.transport?.sessionId === id);
      return {
        id,
        supportsUrlElicitation: server?.server.getClientCapabilities()?.elicitation?.url !== undefined,
        ...(server
          ? {
              notifyElicitationComplete: (elicitationId: string) =>
                server.server.createElicitationCompletionNotifier(elicitationId)(),
            }
          : {}),
      };
    },
  };
}

/** `who_am_i`: the activity module's method that yields an OAuth ask, driven by the token broker. */
export function whoAmITool(options: {
  broker: TokenBroker;
  activity: Activity;
  sessions: SessionServers;
  tenantId: string;
}): ModuleTool {
  return {
    name: 'who_am_i',
    description:
      'Connects your demo-provider account (a login link the first time) and reports who you are there.',
    handler: async (_args, extra) => {
      const sub = extra.authInfo?.extra?.['sub'];
      if (typeof sub !== 'string')
        return { isError: true, content: [{ type: 'text', text: 'this tool needs a signed-in user' }] };
      const session = options.sessions.handle(extra);
      const context = { tenantId: options.tenantId, userId: sub, photonId: 'activity', session };
      try {
        const text = await options.broker.runWithAsks(() => options.activity.whoAmI(), context);
        return { content: [{ type: 'text', text }] };
      } catch (error) {
        return elicitationToolResponse(error, session);
      }
    },
  };
}
