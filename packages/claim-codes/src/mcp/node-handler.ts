import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type Logger, silentLogger } from '@keyhold/core';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import {
  type ClaimAttemptGate,
  type ClaimFailureRateLimit,
  createClaimAttemptGate,
} from '../claim-attempts.js';
import type { Claims } from '../claims.js';
import { normalizeClaimCode } from '../code.js';
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
  /**
   * A budget of claim-code guesses per principal (see {@link ClaimFailureRateLimit}: default 10 per 60 s). A
   * request presenting a code that is not known to be valid spends one unit before the code is looked up; over
   * the budget it is answered `429` with `Retry-After` and the code is neither looked up nor recorded on the
   * session, so `tools/list` stops being a guessing oracle. Default: off.
   */
  readonly claimFailureRateLimit?: ClaimFailureRateLimit;
  /**
   * Who is guessing: the principal whose budget a request spends. Default: `sub:<subject>` from the verified
   * token (`req.auth.extra.sub`, else `client:<clientId>`), else `ip:<socket address>` (a host behind a proxy
   * passes the forwarded client address, e.g. with `clientIp` of `@keyhold/adapter-node`).
   */
  readonly principalOf?: (req: IncomingMessage & { auth?: AuthInfo }) => string | undefined;
}

/**
 * The default {@link ScopedMcpHandlerOptions.principalOf}: the token's subject, its client, or the socket
 * address; `unknown` when there is none of them (one shared budget).
 */
function defaultPrincipal(req: IncomingMessage & { auth?: AuthInfo }): string {
  const subject = req.auth?.extra?.['sub'];
  if (typeof subject === 'string' && subject !== '') return `sub:${subject}`;
  if (req.auth?.clientId) return `client:${req.auth.clientId}`;
  const address = req.socket?.remoteAddress;
  return address ? `ip:${address}` : 'unknown';
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
  /** The code this session last had admitted by the guess budget: presenting it again is not a new guess. */
  admitted: { code: string | undefined };
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
  const gate: ClaimAttemptGate | undefined =
    options.claimFailureRateLimit === undefined
      ? undefined
      : createClaimAttemptGate(claims, options.claimFailureRateLimit);
  // Validation goes through the gate so it learns which codes are valid (and spend nothing when presented again).
  const sessionClaims = gate?.claims ?? claims;
  const principalOf = options.principalOf ?? defaultPrincipal;

  /**
   * Answers 429 and returns true when the request's code may not be looked up now. The same code presented
   * again on one session is not a new guess (clients repeat the header on every request) and spends nothing.
   */
  async function refusedOverBudget(
    req: IncomingMessage & { auth?: AuthInfo },
    res: ServerResponse,
    code: string | undefined,
    admittedOnSession: { code: string | undefined },
  ): Promise<boolean> {
    if (gate === undefined || code === undefined) return false;
    const normalized = normalizeClaimCode(code);
    const key = normalized.ok ? normalized.code : code;
    if (admittedOnSession.code === key) return false;
    const admitted = await gate.admit(principalOf(req) ?? defaultPrincipal(req), code);
    if (admitted.ok) {
      admittedOnSession.code = key;
      return false;
    }
    logger.warn(
      { event: 'rate_limited', endpoint: 'mcp_claim_code', retryAfterSeconds: admitted.retryAfterSeconds },
      'claim-code attempts over the limit',
    );
    const retryAfter = admitted.retryAfterSeconds;
    jsonRpcError(
      res,
      429,
      -32000,
      `Too many claim-code attempts; retry in ${retryAfter} s.`,
      { 'retry-after': String(retryAfter) },
      { error: 'rate_limited', retry_after_seconds: retryAfter },
    );
    return true;
  }

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
      // Before the code is recorded: a refused guess must not be validated by a later request either.
      if (await refusedOverBudget(req, res, code, open.admitted)) return;
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
    const admitted: { code: string | undefined } = { code: undefined };
    if (await refusedOverBudget(req, res, code, admitted)) return;
    const claim = createClaimSession({ claims: sessionClaims, requireClaimCode, logger });
    claim.present(code);
    if (await refusedWithoutCode(claim, res)) return;

    const server = createServer();
    registerToolModules(server, modules, { session: claim, logger });
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator,
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, claim, admitted });
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

function jsonRpcError(
  res: ServerResponse,
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
  data?: Record<string, unknown>,
): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers });
  const error = data === undefined ? { code, message } : { code, message, data };
  res.end(JSON.stringify({ jsonrpc: '2.0', error, id: null }));
}
