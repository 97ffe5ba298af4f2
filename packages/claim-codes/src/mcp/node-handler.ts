import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type Logger, silentLogger } from '@keyhold/core';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Claims } from '../claims.js';
import { ClaimCodesError } from '../errors.js';
import { claimCodeFromHeaders, claimCodeFromUrl } from './claim-code-input.js';
import { type ClaimSession, createClaimSession, type SessionScope } from './claim-session.js';
import { registerToolModules, type ToolModule } from './tool-modules.js';

/**
 * Options of {@link createScopedMcpHandler}.
 *
 * @example
 * ```ts
 * const options: ScopedMcpHandlerOptions = {
 *   claims, modules, createServer: () => new McpServer({ name: 'host', version: '1.0.0' }),
 * };
 * ```
 */
export interface ScopedMcpHandlerOptions {
  readonly claims: Claims;
  readonly modules: readonly ToolModule[];
  /** Builds the MCP server of one new session (server info, resources, prompts); tools are added to it. */
  readonly createServer: () => McpServer | Server;
  /** Turn away requests without a valid claim code with 403 instead of serving them unscoped. Default `false`. */
  readonly requireClaimCode?: boolean;
  /** Largest JSON-RPC POST body read. Default 4 194 304 (4 MiB). */
  readonly maxBodyBytes?: number;
  /** Default `crypto.randomUUID`. */
  readonly sessionIdGenerator?: () => string;
  /** Default: silent. */
  readonly logger?: Logger;
}

/**
 * A Streamable HTTP MCP endpoint for `node:http`, one transport and one server per session.
 *
 * @example
 * ```ts
 * createServer((req, res) => void mcp.handle(req, res)).listen(8787);
 * ```
 */
export interface ScopedMcpHandler {
  /**
   * Serves one request to the MCP endpoint (POST, GET stream or DELETE). Authenticate first and put the
   * verified token on `req.auth`, as the SDK expects. Pass `parsedBody` when a framework already read it.
   */
  handle(
    req: IncomingMessage & { auth?: AuthInfo },
    res: ServerResponse,
    parsedBody?: unknown,
  ): Promise<void>;
  /** Closes every open session. */
  close(): Promise<void>;
  /** The number of open sessions. */
  readonly sessionCount: number;
}

interface OpenSession {
  readonly transport: StreamableHTTPServerTransport;
  readonly claim: ClaimSession;
}

/**
 * Creates a claim-scoped Streamable HTTP MCP endpoint: the `node:http` wiring of
 * {@link createClaimSession} and {@link registerToolModules}. On every request it reads the claim code from
 * the `Mcp-Claim-Code` header or the `claim` query parameter (the SSE GET stream cannot reach an MCP
 * handler, so this is where `?claim=` is read) and records it on the session named by `Mcp-Session-Id`,
 * which stays required and separate. With `requireClaimCode`, a request whose session has no valid code
 * is answered 403 before it reaches the transport.
 *
 * @example
 * ```ts
 * const mcp = createScopedMcpHandler({
 *   claims, modules, createServer: () => new McpServer({ name: 'host', version: '1.0.0' }),
 * });
 * http.createServer((req, res) => void mcp.handle(req, res)).listen(8787);
 * ```
 */
export function createScopedMcpHandler(options: ScopedMcpHandlerOptions): ScopedMcpHandler {
  const { claims, modules, createServer } = options;
  const requireClaimCode = options.requireClaimCode ?? false;
  const maxBodyBytes = options.maxBodyBytes ?? 4 * 1024 * 1024;
  const sessionIdGenerator = options.sessionIdGenerator ?? randomUUID;
  const logger = options.logger ?? silentLogger;
  if (!Number.isSafeInteger(maxBodyBytes) || maxBodyBytes <= 0) {
    throw new ClaimCodesError('ERR_INVALID_OPTIONS', 'maxBodyBytes must be a positive whole number');
  }
  const sessions = new Map<string, OpenSession>();

  async function refusedWithoutCode(claim: ClaimSession, res: ServerResponse): Promise<boolean> {
    if (!requireClaimCode) return false;
    let scope: SessionScope;
    try {
      scope = await claim.resolve();
    } catch (error) {
      logger.error(
        { err: error instanceof Error ? error.message : String(error) },
        'claim validation failed',
      );
      jsonRpcError(res, 503, -32603, 'Claim codes are unavailable; try again later.');
      return true;
    }
    if (scope.kind !== 'refused') return false;
    jsonRpcError(res, 403, -32000, 'Forbidden: a valid claim code is required (Mcp-Claim-Code header).');
    return true;
  }

  return {
    get sessionCount() {
      return sessions.size;
    },

    async handle(req, res, parsedBody) {
      try {
        await serve(req, res, parsedBody);
      } catch (error) {
        // Never an unhandled rejection: a host that mounts this as `(req, res) => void mcp.handle(req, res)`
        // would otherwise lose its process to one bad request.
        logger.error({ err: error }, 'claim-codes: MCP request failed');
        if (!res.headersSent) jsonRpcError(res, 500, -32603, 'Internal error');
        else res.end();
      }
    },

    async close() {
      const open = [...sessions.values()];
      sessions.clear();
      await Promise.all(open.map(({ transport }) => transport.close().catch(() => {})));
    },
  };

  async function serve(
    req: IncomingMessage & { auth?: AuthInfo },
    res: ServerResponse,
    parsedBody?: unknown,
  ): Promise<void> {
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://localhost');
    } catch {
      return jsonRpcError(res, 400, -32600, 'Bad Request: the request target is not a valid URL');
    }
    const code = claimCodeFromHeaders(req.headers) ?? claimCodeFromUrl(url);
    const sessionHeader = req.headers['mcp-session-id'];
    const sessionId = typeof sessionHeader === 'string' ? sessionHeader : undefined;

    if (sessionId !== undefined) {
      const open = sessions.get(sessionId);
      if (open === undefined) return jsonRpcError(res, 404, -32001, 'Session not found');
      open.claim.present(code);
      if (await refusedWithoutCode(open.claim, res)) return;
      const body = req.method === 'POST' ? await bodyOf(req, res, parsedBody, maxBodyBytes) : undefined;
      if (body === INVALID) return;
      return open.transport.handleRequest(req, res, body);
    }

    if (req.method !== 'POST') {
      return jsonRpcError(res, 400, -32000, 'Bad Request: Mcp-Session-Id header is required');
    }
    const body = await bodyOf(req, res, parsedBody, maxBodyBytes);
    if (body === INVALID) return;
    if (!isInitializeRequest(body)) {
      return jsonRpcError(res, 400, -32000, 'Bad Request: Mcp-Session-Id header is required');
    }
    const claim = createClaimSession({ claims, requireClaimCode, logger });
    claim.present(code);
    if (await refusedWithoutCode(claim, res)) return;

    const server = createServer();
    registerToolModules(server, modules, { session: claim, logger });
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator,
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, claim });
      },
      onsessionclosed: (id) => {
        sessions.delete(id);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  }
}

const INVALID: unique symbol = Symbol('invalid body');

async function bodyOf(
  req: IncomingMessage,
  res: ServerResponse,
  parsedBody: unknown,
  maxBodyBytes: number,
): Promise<unknown> {
  if (parsedBody !== undefined) return parsedBody;
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of req) {
      const buffer = chunk as Buffer;
      size += buffer.length;
      if (size > maxBodyBytes) {
        jsonRpcError(res, 413, -32000, `Payload Too Large: the limit is ${maxBodyBytes} bytes`);
        req.resume();
        return INVALID;
      }
      chunks.push(buffer);
    }
  } catch {
    // The client went away mid-body: nobody is left to answer.
    res.destroy();
    return INVALID;
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    jsonRpcError(res, 400, -32700, 'Parse error: the body is not JSON');
    return INVALID;
  }
}

function jsonRpcError(res: ServerResponse, status: number, code: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}
