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
interface NodeRequestLike {
  readonly method?: string | undefined;
  readonly url?: string | undefined;
  readonly headers: Readonly<Record<string, string | readonly string[] | undefined>>;
}

/**
 * The outcome of the gate: the SDK-shaped `AuthInfo` to set as `req.auth`, or a refusal to send as it is.
 *
 * @example
 * ```ts
 * if (!gate.ok) return send(gate.status, gate.headers, gate.body);
 * ```
 */
export type McpGateOutcome =
  | { readonly ok: true; readonly authInfo: AuthInfo; readonly principal: Principal }
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
        request = new Request(new URL(incoming.url ?? '/', publicUrl), { method: 'GET', headers });
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
      return { ok: true, authInfo: authentication.authInfo, principal: authentication.principal };
    },
  };
}
