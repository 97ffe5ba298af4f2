// `@keyhold/mcp/sdk-v1`: the Keyhold request gate for hosts that still serve MCP with SDK v1's McpServer.
import { type Logger, silentLogger } from '@keyhold/core';
import type { AuthInfo } from '@modelcontextprotocol/server';
import { refusalMessage } from './host-origin.js';
import { createRequestChecks, type RequestCheckOptions } from './request-checks.js';
import type { Principal } from './tool-module.js';

/**
 * Options of {@link createMcpRequestGate}: the same meaning as in `createMcpEndpoint`.
 */
export interface McpRequestGateOptions extends RequestCheckOptions {
  readonly logger?: Logger;
}

/** A request as Node gives it: enough of `IncomingMessage` for the gate (any `IncomingMessage` fits). */
/** Methods a body-less `Request` can be built with. */
const REQUEST_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

interface NodeRequestLike {
  readonly method?: string | undefined;
  readonly url?: string | undefined;
  readonly headers: Readonly<Record<string, string | readonly string[] | undefined>>;
}

/**
 * The outcome of the gate: the SDK-shaped `AuthInfo` to set as `req.auth` (and, when the client's DPoP nonce
 * is an older one, `dpopNonce` to send as the answer's `DPoP-Nonce` header, RFC 9449 §9), or a refusal to
 * send as it is.
 *
 * @example
 * ```ts
 * if (!gate.ok) return send(gate.status, gate.headers, gate.body);
 * ```
 */
export type McpGateOutcome =
  | {
      readonly ok: true;
      readonly authInfo: AuthInfo;
      readonly principal: Principal;
      readonly dpopNonce?: string;
    }
  | {
      readonly ok: false;
      readonly status: number;
      readonly headers: Readonly<Record<string, string>>;
      readonly body: string;
    };

function headerRecord(headers: Headers): Record<string, string> {
  const record: Record<string, string> = {};
  headers.forEach((value, name) => {
    record[name] = value;
  });
  return record;
}

/**
 * The checks `createMcpEndpoint` runs before the SDK (Host and Origin, bearer token, resource policy),
 * for a host that keeps its SDK v1 `McpServer`. Set `req.auth = outcome.authInfo` and hand the request to
 * the v1 transport; in tools, throw `error.toMCPError(UrlElicitationRequiredError)` (token-vault) with the
 * v1 class so the client gets -32042.
 *
 * @example
 * ```ts
 * const gate = createMcpRequestGate({ resource: oauth.protectedResource('demo') });
 * app.post('/mcp', async (req, res) => {
 *   const outcome = await gate.check(req);
 *   if (!outcome.ok) return res.writeHead(outcome.status, outcome.headers).end(outcome.body);
 *   req.auth = outcome.authInfo;
 *   await transport.handleRequest(req, res, req.body);
 * });
 * ```
 */
export function createMcpRequestGate(options: McpRequestGateOptions): {
  check(request: NodeRequestLike | Request): Promise<McpGateOutcome>;
} {
  const logger = options.logger ?? silentLogger;
  const { publicUrl, hostOrigin, locate, authenticate } = createRequestChecks(options, logger);
  const refusal = async (response: Response): Promise<McpGateOutcome> => ({
    ok: false,
    status: response.status,
    headers: headerRecord(response.headers),
    body: await response.text(),
  });
  return {
    async check(incoming) {
      let request: Request;
      if (incoming instanceof Request) {
        request = incoming;
      } else {
        const headers = new Headers();
        for (const [name, value] of Object.entries(incoming.headers)) {
          if (typeof value === 'string') headers.set(name, value);
          else if (value !== undefined) headers.set(name, value.join(', '));
        }
        // The method travels (a DPoP proof's htm is compared with it); one the Request class refuses
        // (CONNECT, TRACE, junk) is read as GET, which such a proof then does not match.
        const method = REQUEST_METHODS.has(incoming.method?.toUpperCase() ?? '')
          ? (incoming.method as string).toUpperCase()
          : 'GET';
        request = new Request(new URL(incoming.url ?? '/', publicUrl), { method, headers });
      }
      const refused = hostOrigin.refusal(request);
      if (refused !== undefined) {
        return refusal(
          new Response(
            JSON.stringify({
              jsonrpc: '2.0',
              error: { code: -32000, message: refusalMessage(refused) },
              id: null,
            }),
            {
              status: refused.status,
              headers: { 'content-type': 'application/json', 'cache-control': 'no-store' },
            },
          ),
        );
      }
      // The host routes to the gate; with one resource the path is not the gate's to check.
      const located = locate(new URL(request.url).pathname);
      const resource = located?.kind === 'resource' ? located.resource : options.resource;
      if (resource === undefined) {
        return refusal(
          new Response(
            JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'Not Found' }, id: null }),
            { status: 404, headers: { 'content-type': 'application/json' } },
          ),
        );
      }
      const authentication = await authenticate(resource, request);
      if (!authentication.ok) return refusal(authentication.response);
      return {
        ok: true,
        authInfo: authentication.authInfo,
        principal: authentication.principal,
        ...(authentication.dpopNonce === undefined ? {} : { dpopNonce: authentication.dpopNonce }),
      };
    },
  };
}
