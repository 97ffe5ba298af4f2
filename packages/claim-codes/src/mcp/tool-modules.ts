import { type Logger, silentLogger } from '@keyhold/core';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type ServerNotification,
  type ServerRequest,
  type Tool,
  type ToolAnnotations,
} from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';
import { ClaimCodesError } from '../errors.js';
import { isPathInScope, resolveExistingPath } from '../scope.js';
import { claimCodeFromHeaders, claimCodeFromUrl } from './claim-code-input.js';
import type { ClaimSession, SessionScope } from './claim-session.js';

/**
 * The `extra` the MCP SDK gives a request handler (signal, session id, `requestInfo`, `authInfo`, …).
 *
 * @example
 * ```ts
 * const handler = async (args: Record<string, unknown>, extra: ToolCallExtra) => ({ content: [] });
 * ```
 */
export type ToolCallExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/**
 * One tool of a tool module.
 *
 * @example
 * ```ts
 * const tool: ModuleTool = {
 *   name: 'read_file',
 *   description: 'Reads a file of the project',
 *   inputSchema: z.object({ path: z.string() }),
 *   handler: async ({ path }) => ({ content: [{ type: 'text', text: await readFile(String(path), 'utf8') }] }),
 * };
 * ```
 */
export interface ModuleTool {
  /** Unique across every registered module. */
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  /**
   * A zod 4 object schema (listed as JSON Schema, and arguments are validated with it before the handler
   * runs), or a JSON Schema object (listed as given; arguments reach the handler unvalidated).
   * Default: an object with no declared properties.
   */
  readonly inputSchema?: z.ZodType | Readonly<Record<string, unknown>>;
  readonly annotations?: ToolAnnotations;
  /**
   * Runs the tool. An `McpError` it throws (such as the SDK's `UrlElicitationRequiredError`) reaches the
   * client as a JSON-RPC error; any other error becomes a tool result with `isError: true` and its message.
   */
  readonly handler: (
    args: Record<string, unknown>,
    extra: ToolCallExtra,
    scope: SessionScope,
  ) => CallToolResult | Promise<CallToolResult>;
}

/**
 * A tool module as the host loaded it: its tools, and the source file whose place on disk decides which
 * claim scopes include it.
 *
 * @example
 * ```ts
 * const module: ToolModule = { id: 'git', name: 'Git', sourcePath: fileURLToPath(import.meta.url), tools: [status] };
 * ```
 */
export interface ToolModule {
  readonly id: string;
  readonly name: string;
  /** The module's source file; resolved through symlinks when the module is registered. */
  readonly sourcePath: string;
  readonly tools: readonly ModuleTool[];
}

/**
 * Options of {@link registerToolModules}.
 *
 * @example
 * ```ts
 * const options: RegisterToolModulesOptions = { session: createClaimSession({ claims }) };
 * ```
 */
export interface RegisterToolModulesOptions {
  /** The claim state of the session this server serves (one server per session, as the SDK examples do). */
  readonly session: ClaimSession;
  /** Default: silent. */
  readonly logger?: Logger;
}

interface RegisteredTool {
  readonly tool: ModuleTool;
  readonly definition: Tool;
  /** `undefined` when the source file did not resolve: such a module is in no scope. */
  readonly realSourcePath: string | undefined;
  readonly validator: z.ZodType | undefined;
}

/**
 * Serves the tools of `modules` on an MCP server (an SDK `McpServer` or low-level `Server`) so that each
 * request sees what the session's claim allows: `tools/list` lists only tools whose module source lies in
 * the scope, and `tools/call` of any other tool fails exactly as a call of a tool that does not exist
 * (JSON-RPC -32602 `Unknown tool: <name>`). On every request the handlers read the `Mcp-Claim-Code` header
 * (and `?claim=`) from the SDK's `extra.requestInfo`, record it on the session, and validate the session's
 * code again, so a revocation counts at once. Over stdio there is no `requestInfo`, so no code is read.
 *
 * The server must not also register tools through `McpServer.registerTool`: these handlers own
 * `tools/list` and `tools/call`. Call this before `connect`. Throws `ERR_INVALID_TOOL_MODULE` for a
 * malformed module or a tool name used twice.
 *
 * @example
 * ```ts
 * const server = new McpServer({ name: 'host', version: '1.0.0' });
 * registerToolModules(server, modules, { session: createClaimSession({ claims }) });
 * await server.connect(transport);
 * ```
 */
export function registerToolModules(
  target: McpServer | Server,
  modules: readonly ToolModule[],
  options: RegisterToolModulesOptions,
): void {
  const { session } = options;
  const logger = options.logger ?? silentLogger;
  const server: Server = 'registerTool' in target ? target.server : target;
  const registered = registerAll(modules, logger);
  let lastScopeDir: string | null | undefined;

  const scopeFor = async (extra: ToolCallExtra): Promise<SessionScope> => {
    const info = extra.requestInfo;
    session.present(claimCodeFromHeaders(info?.headers) ?? claimCodeFromUrl(info?.url));
    let scope: SessionScope;
    try {
      scope = await session.resolve();
    } catch (error) {
      // A store outage (corrupt or unreadable claim file) fails the request closed, without the details.
      logger.error(
        { err: error instanceof Error ? error.message : String(error) },
        'claim validation failed',
      );
      throw new McpError(ErrorCode.InternalError, 'Claim codes are unavailable; try again later.');
    }
    if (scope.kind === 'refused') {
      throw new McpError(ErrorCode.InvalidRequest, 'A valid claim code is required (Mcp-Claim-Code header).');
    }
    const scopeDir = scope.kind === 'scoped' ? scope.scopeDir : null;
    if (lastScopeDir !== undefined && lastScopeDir !== scopeDir) {
      // The visible tools changed (a new code, a revocation, an expiry): tell a client listening on the
      // SSE stream. Without an open stream the SDK drops the notification, which is harmless.
      server.sendToolListChanged().catch(() => {});
    }
    lastScopeDir = scopeDir;
    return scope;
  };

  const visible = (entry: RegisteredTool, scope: SessionScope): boolean =>
    scope.kind !== 'scoped' ||
    (entry.realSourcePath !== undefined && isPathInScope(scope.scopeDir, entry.realSourcePath));

  try {
    server.assertCanSetRequestHandler('tools/list');
    server.assertCanSetRequestHandler('tools/call');
  } catch (cause) {
    throw new ClaimCodesError(
      'ERR_INVALID_TOOL_MODULE',
      'The server already serves tools (McpServer.registerTool or an earlier registerToolModules); register every tool module in one call instead.',
      { cause },
    );
  }
  server.registerCapabilities({ tools: { listChanged: true } });

  server.setRequestHandler(ListToolsRequestSchema, async (_request, extra) => {
    const scope = await scopeFor(extra);
    const tools: Tool[] = [];
    for (const entry of registered.values()) if (visible(entry, scope)) tools.push(entry.definition);
    return { tools };
  });

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const scope = await scopeFor(extra);
    const { name } = request.params;
    const entry = registered.get(name);
    // One answer for "no such tool" and "not in your scope", so a scoped session cannot learn what exists.
    if (entry === undefined || !visible(entry, scope)) {
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
    }
    let args: Record<string, unknown> = request.params.arguments ?? {};
    if (entry.validator !== undefined) {
      const parsed = entry.validator.safeParse(args);
      if (!parsed.success) {
        return toolError(`Invalid arguments for tool ${name}: ${z.prettifyError(parsed.error)}`);
      }
      args = parsed.data as Record<string, unknown>;
    }
    try {
      return await entry.tool.handler(args, extra, scope);
    } catch (error) {
      if (error instanceof McpError) throw error;
      logger.warn({ tool: name, err: error instanceof Error ? error.name : typeof error }, 'tool failed');
      return toolError(error instanceof Error ? error.message : String(error));
    }
  });
}

function registerAll(modules: readonly ToolModule[], logger: Logger): Map<string, RegisteredTool> {
  const registered = new Map<string, RegisteredTool>();
  for (const module of modules) {
    if (!nonEmpty(module.id) || !nonEmpty(module.name) || !nonEmpty(module.sourcePath)) {
      throw new ClaimCodesError(
        'ERR_INVALID_TOOL_MODULE',
        'A tool module needs an id, a name and a sourcePath.',
      );
    }
    if (!Array.isArray(module.tools)) {
      throw new ClaimCodesError('ERR_INVALID_TOOL_MODULE', `Tool module ${module.id} has no tools array.`);
    }
    const realSourcePath = resolveExistingPath(module.sourcePath);
    if (realSourcePath === undefined) {
      logger.warn({ module: module.id }, 'tool module source file does not resolve; it is in no claim scope');
    }
    for (const tool of module.tools) {
      if (!nonEmpty(tool.name) || typeof tool.handler !== 'function') {
        throw new ClaimCodesError(
          'ERR_INVALID_TOOL_MODULE',
          `Every tool of module ${module.id} needs a name and a handler.`,
        );
      }
      const existing = registered.get(tool.name);
      if (existing !== undefined) {
        throw new ClaimCodesError(
          'ERR_INVALID_TOOL_MODULE',
          `The tool name ${tool.name} is used twice (module ${module.id} and an earlier module).`,
        );
      }
      const validator = isZodSchema(tool.inputSchema) ? tool.inputSchema : undefined;
      registered.set(tool.name, {
        tool,
        definition: definitionOf(tool, validator),
        realSourcePath,
        validator,
      });
    }
  }
  return registered;
}

function definitionOf(tool: ModuleTool, validator: z.ZodType | undefined): Tool {
  let inputSchema: Tool['inputSchema'] = { type: 'object' };
  if (validator !== undefined) {
    const { $schema: _dialect, ...schema } = z.toJSONSchema(validator, { io: 'input' }) as Record<
      string,
      unknown
    >;
    inputSchema = { ...schema, type: 'object' };
  } else if (tool.inputSchema !== undefined) {
    inputSchema = { ...(tool.inputSchema as Record<string, unknown>), type: 'object' };
  }
  return {
    name: tool.name,
    inputSchema,
    ...(tool.title === undefined ? {} : { title: tool.title }),
    ...(tool.description === undefined ? {} : { description: tool.description }),
    ...(tool.annotations === undefined ? {} : { annotations: tool.annotations }),
  };
}

function isZodSchema(value: unknown): value is z.ZodType {
  return typeof value === 'object' && value !== null && '_zod' in value;
}

function nonEmpty(value: unknown): value is string {
  return typeof value === 'string' && value !== '';
}

function toolError(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}
