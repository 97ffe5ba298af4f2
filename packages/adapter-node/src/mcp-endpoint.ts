import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HandlerResult, Logger } from '@keyhold/core';
import { jsonResult, silentLogger } from '@keyhold/core';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { writeResult } from './listener.js';

/** The outcome of authenticating one MCP request. */
export type McpAuthentication =
  | { readonly ok: true; readonly auth: AuthInfo }
  | { readonly ok: false; readonly result: HandlerResult };

/** Something that serves MCP over Streamable HTTP for `node:http`, such as claim-codes' scoped handler. */
export interface McpRequestHandler {
  handle(req: IncomingMessage & { auth?: AuthInfo }, res: ServerResponse): Promise<void>;
}

/** Options of {@link createMcpEndpoint}. */
export interface McpEndpointOptions {
  /**
   * Checks the request's bearer token (for instance with oauth-core's `verifyAccessToken`) and returns the
   * SDK's `AuthInfo`, or the ready 401/403 result with its `WWW-Authenticate` challenge.
   */
  authenticate(request: IncomingMessage): Promise<McpAuthentication>;
  /** Serves the authenticated request. */
  mcp: McpRequestHandler;
  logger?: Logger;
}

function recordOwnerOnWriteHead(response: ServerResponse, record: (sessionId: string) => void): void {
  const writeHead = response.writeHead;
  response.writeHead = function (this: ServerResponse, ...args: unknown[]): ServerResponse {
    const headers = args.find(
      (arg): arg is Record<string, unknown> => typeof arg === 'object' && arg !== null && !Array.isArray(arg),
    );
    const opened =
      headers?.['mcp-session-id'] ?? headers?.['Mcp-Session-Id'] ?? response.getHeader('mcp-session-id');
    if (typeof opened === 'string') record(opened);
    return (writeHead as (...a: unknown[]) => ServerResponse).apply(this, args);
  } as ServerResponse['writeHead'];
}

/** Who owns a session: the token's subject, or its client when it has none. */
function principal(auth: AuthInfo): string {
  const sub = auth.extra?.['sub'];
  return typeof sub === 'string' ? `sub:${sub}` : `client:${auth.clientId}`;
}

/**
 * Mounts an MCP Streamable HTTP endpoint behind bearer authentication. Every request (POST, the SSE GET
 * and DELETE) is authenticated; the verified token reaches the SDK as `req.auth`, so tool handlers see it
 * as `extra.authInfo`. A session belongs to the principal that opened it: another principal presenting its
 * `Mcp-Session-Id` gets the same 404 as for an unknown session, so session ids cannot be borrowed.
 *
 * @example
 * ```ts
 * const endpoint = createMcpEndpoint({
 *   authenticate: async (req) => toMcpAuthentication(await oauth.verifyAccessToken('demo', req.headers.authorization)),
 *   mcp: createScopedMcpHandler({ claims, modules, createServer }),
 * });
 * router → if (path === '/tenant/demo/mcp') endpoint(req, res);
 * ```
 */
export function createMcpEndpoint(
  options: McpEndpointOptions,
): (request: IncomingMessage, response: ServerResponse) => void {
  const logger = options.logger ?? silentLogger;
  const owners = new Map<string, string>();
  return (request, response) => {
    void (async () => {
      try {
        const authentication = await options.authenticate(request);
        if (!authentication.ok) {
          request.resume();
          writeResult(response, authentication.result);
          return;
        }
        const who = principal(authentication.auth);
        const header = request.headers['mcp-session-id'];
        const sessionId = typeof header === 'string' ? header : undefined;
        if (sessionId !== undefined) {
          const owner = owners.get(sessionId);
          if (owner !== undefined && owner !== who) {
            request.resume();
            writeResult(
              response,
              jsonResult(404, {
                jsonrpc: '2.0',
                error: { code: -32001, message: 'Session not found' },
                id: null,
              }),
            );
            return;
          }
        }
        const authed = request as IncomingMessage & { auth?: AuthInfo };
        authed.auth = authentication.auth;
        if (sessionId === undefined) {
          // The session id is only known once the transport answers, and it sends its headers through
          // writeHead(status, headers), which getHeader() cannot see: record the owner as the head is written.
          recordOwnerOnWriteHead(response, (opened) => owners.set(opened, who));
        }
        await options.mcp.handle(authed, response);
        // Forget a session once it is closed, or once the MCP handler no longer knows it.
        const closed = request.method === 'DELETE' && response.statusCode < 300;
        if (sessionId !== undefined && (closed || response.statusCode === 404)) owners.delete(sessionId);
      } catch (error) {
        logger.error({ err: error, path: request.url?.split('?', 1)[0] }, 'unhandled error in MCP endpoint');
        if (!response.headersSent)
          writeResult(
            response,
            jsonResult(500, { error: 'server_error', error_description: 'internal server error' }),
          );
        else response.end();
      }
    })();
  };
}
