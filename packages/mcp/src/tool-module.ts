import type { OAuthAsk, ToolModule } from '@keyhold/core';
import type {
  AuthInfo,
  CallToolResult,
  StandardSchemaWithJSON,
  ToolAnnotations,
} from '@modelcontextprotocol/server';

/**
 * Who a tool call acts for: the token's subject, the OAuth client that holds the token, and the tenant.
 */
export interface Principal {
  readonly userId: string;
  readonly clientId: string;
  /** The tenant whose token it is (from `AuthInfo.extra.tenantId`), when the verifier says. */
  readonly tenantId?: string;
}

/**
 * The MCP protocol era of a request: `modern` is revision 2026-07-28 (per-request envelope, no session),
 * `legacy` is 2025-11-25 and earlier, served statelessly.
 *
 * @example
 * ```ts
 * if (context.era === 'modern') console.log('2026-07-28 client');
 * ```
 */
export type McpEra = 'legacy' | 'modern';

/**
 * What a tool's handler gets besides its arguments.
 *
 * @example
 * ```ts
 * const handler = async (args: { repo: string }, context: ToolContext) => {
 *   const token = await context.getToken({ ask: 'oauth', provider: 'github', scopes: ['repo'] });
 *   return { content: [{ type: 'text' as const, text: `token for ${context.principal.userId}: ${token.length} chars` }] };
 * };
 * ```
 */
export interface ToolContext {
  readonly principal: Principal;
  readonly era: McpEra;
  /** The verified token, as the verifier described it. */
  readonly authInfo: AuthInfo;
  /** The claim code's directory when the request is narrowed by one. */
  readonly claimScopeDir?: string;
  /** Aborted when the client cancels or goes away. */
  readonly signal: AbortSignal;
  /**
   * The user's token at a third-party provider, through the endpoint's `broker`. When the user has not
   * authorized yet, the call ends here and the client is shown a login link (URL elicitation); the client
   * retries after the user finishes. Throws when the endpoint has no broker.
   */
  getToken(ask: OAuthAsk): Promise<string>;
}

/**
 * What a tool handler returns: a result, or a generator that yields OAuth asks and gets each token back.
 *
 * @example
 * ```ts
 * async function* listRepos(): ToolReturn {
 *   const token = yield { ask: 'oauth', provider: 'github', scopes: ['repo'] };
 *   return { content: [{ type: 'text', text: token.slice(0, 4) }] };
 * }
 * ```
 */
export type ToolReturn =
  | CallToolResult
  | Promise<CallToolResult>
  | AsyncGenerator<OAuthAsk, CallToolResult, string>
  | Generator<OAuthAsk, CallToolResult, string>;

/**
 * One tool of a tool module, defined the SDK's way: a Standard Schema (zod 4) for the arguments, which the
 * SDK lists as JSON Schema and validates before the handler runs.
 *
 * @example
 * ```ts
 * import * as z from 'zod';
 *
 * const schema = z.object({ text: z.string() });
 * const addNote: ModuleTool<typeof schema> = {
 *   name: 'add_note',
 *   inputSchema: schema,
 *   handler: ({ text }) => ({ content: [{ type: 'text', text: `saved ${text}` }] }),
 * };
 * ```
 */
export interface ModuleTool<Input extends StandardSchemaWithJSON = StandardSchemaWithJSON> {
  /** Unique across every module the endpoint serves. */
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  /** The arguments (default: an object with no properties). */
  readonly inputSchema?: Input;
  readonly annotations?: ToolAnnotations;
  /**
   * Runs the tool. A thrown error becomes a tool result with `isError: true` and its message.
   */
  readonly handler: (args: StandardSchemaWithJSON.InferOutput<Input>, context: ToolContext) => ToolReturn;
}

/**
 * A tool module as `@keyhold/mcp` serves it: the shared {@link ToolModule} of `@keyhold/core` with its
 * tools.
 *
 * @example
 * ```ts
 * const modules: readonly McpToolModule[] = [notesModule];
 * ```
 */
// biome-ignore lint/suspicious/noExplicitAny: each tool's handler takes its own schema's output; `unknown` would reject them all (parameters are contravariant).
export type McpToolModule = ToolModule<ModuleTool<any>>;

/**
 * A tool module as `createMcpEndpoint` takes it: `sourcePath` is needed only when claim codes scope modules
 * by it (webhook-kit, which reads it, takes the full {@link McpToolModule}).
 *
 * @example
 * ```ts
 * const served: McpServedModule = { toolModuleId: 'notes', displayName: 'Notes', tools: [] };
 * ```
 */
export type McpServedModule = Omit<McpToolModule, 'sourcePath'> & { readonly sourcePath?: string };

/**
 * Types one tool: `args` of the handler is inferred from `inputSchema`.
 *
 * @example
 * ```ts
 * const echo = defineTool({ name: 'echo', inputSchema: z.object({ text: z.string() }),
 *   handler: ({ text }) => ({ content: [{ type: 'text', text }] }) });
 * ```
 */
export function defineTool<Input extends StandardSchemaWithJSON>(tool: ModuleTool<Input>): ModuleTool<Input> {
  return tool;
}
