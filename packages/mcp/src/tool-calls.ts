import type { Logger, OAuthAsk } from '@keyhold/core';
import { StorageUnavailableError } from '@keyhold/core';
import {
  type AuthInfo,
  type CallToolResult,
  CLIENT_CAPABILITIES_META_KEY,
  type InputRequiredResult,
  inputRequired,
  type McpServer,
  type ServerContext,
  UrlElicitationRequiredError,
} from '@modelcontextprotocol/server';
import {
  AuthorizationNeeded,
  type BrokerElicitation,
  linkAsToolText,
  type McpTokenBroker,
} from './brokering.js';
import type { OutageSlot } from './outage.js';
import type { RequestStatePayload, RequestStateSeal } from './request-state.js';
import type {
  McpEra,
  McpServedModule,
  ModuleTool,
  Principal,
  ToolContext,
  ToolReturn,
} from './tool-module.js';

/** What one request decided before the SDK took over. */
export interface RequestData {
  readonly principal: Principal;
  readonly authInfo: AuthInfo;
  readonly scopeDir?: string;
  /** From the signed 2025-era capability id. */
  readonly legacyUrlElicitation: boolean;
  /** A storage outage a step inside the SDK hit: the endpoint answers 503 instead. */
  readonly outage: OutageSlot;
}

/** Registers wrapped tools on a per-request server. */
export interface ToolRunner {
  register(
    server: McpServer,
    module: McpServedModule,
    tool: ModuleTool,
    data: RequestData,
    era: McpEra,
  ): void;
}

/** The key of the one input request a brokered ask makes. */
const AUTHORIZATION_INPUT = 'authorization';

function toolError(text: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }] };
}

function isGenerator(
  value: unknown,
): value is AsyncGenerator<OAuthAsk, CallToolResult, string> | Generator<OAuthAsk, CallToolResult, string> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { next?: unknown }).next === 'function' &&
    typeof (value as { throw?: unknown }).throw === 'function'
  );
}

async function settle(
  returned: ToolReturn,
  getToken: (ask: OAuthAsk) => Promise<string>,
): Promise<CallToolResult> {
  if (!isGenerator(returned)) return await returned;
  // Each yielded ask is answered with a token; a refusal (authorization needed) is thrown in at the yield.
  let step = await returned.next();
  while (step.done !== true) {
    let token: string;
    try {
      token = await getToken(step.value);
    } catch (error) {
      step = await returned.throw(error);
      continue;
    }
    step = await returned.next(token);
  }
  return step.value;
}

/** Creates the tool wrapper: brokered asks become the era's elicitation; other errors, tool errors. */
export function createToolRunner(options: {
  readonly seal: RequestStateSeal;
  readonly logger: Logger;
  readonly broker?: McpTokenBroker;
  readonly tenantId?: string;
}): ToolRunner {
  const { seal, logger, broker } = options;

  async function elicit(
    elicitation: BrokerElicitation,
    toolName: string,
    args: unknown,
    data: RequestData,
    era: McpEra,
    ctx: ServerContext,
  ): Promise<CallToolResult | InputRequiredResult> {
    if (era === 'modern') {
      const envelope = ctx.mcpReq.envelope as
        | Record<string, { elicitation?: { url?: unknown } } | undefined>
        | undefined;
      const declared = envelope?.[CLIENT_CAPABILITIES_META_KEY]?.elicitation?.url;
      if (declared === undefined) return linkAsToolText(elicitation);
      return inputRequired({
        inputRequests: {
          [AUTHORIZATION_INPUT]: inputRequired.elicitUrl({
            message: elicitation.message,
            url: elicitation.elicitationUrl,
          }),
        },
        requestState: await seal.mint(toolName, args, elicitation.provider, ctx),
      });
    }
    if (!data.legacyUrlElicitation) return linkAsToolText(elicitation);
    // -32042 (2025-11-25): the SDK sends the message as it is, so clients show it once, unprefixed.
    throw new UrlElicitationRequiredError(
      [
        {
          mode: 'url',
          message: elicitation.message,
          url: elicitation.elicitationUrl,
          elicitationId: elicitation.elicitationId,
          provider: elicitation.provider,
          scopes: [...elicitation.scopes],
        } as never,
      ],
      elicitation.message,
    );
  }

  async function call(
    module: McpServedModule,
    tool: ModuleTool,
    args: unknown,
    data: RequestData,
    era: McpEra,
    ctx: ServerContext,
  ): Promise<CallToolResult | InputRequiredResult> {
    if (era === 'modern') {
      const state = ctx.mcpReq.requestState<RequestStatePayload>();
      if (state !== undefined) {
        // Integrity, binding, expiry and single use were checked by the verify hook before this runs.
        if (typeof state !== 'object' || !(await seal.matches(state, tool.name, args))) {
          return toolError('This authorization belongs to another tool call; run the tool again.');
        }
        const answer = ctx.mcpReq.inputResponses?.[AUTHORIZATION_INPUT] as { action?: unknown } | undefined;
        if (answer?.action === 'decline' || answer?.action === 'cancel') {
          return toolError(`Authorization at ${state.provider} was not given, so the tool did not run.`);
        }
      }
    }
    const tenantId = data.principal.tenantId ?? options.tenantId;
    const getToken = async (ask: OAuthAsk): Promise<string> => {
      if (broker === undefined || tenantId === undefined) {
        throw new Error('this endpoint has no token broker (option broker)');
      }
      const outcome = await broker.requestToken(ask, {
        tenantId,
        userId: data.principal.userId,
        toolModuleId: module.toolModuleId,
        // Labels the broker's events with the application that asked.
        clientId: data.principal.clientId,
      });
      if (outcome.ok) return outcome.accessToken;
      throw new AuthorizationNeeded(outcome.error);
    };
    const context: ToolContext = {
      principal: data.principal,
      era,
      authInfo: data.authInfo,
      signal: ctx.mcpReq.signal,
      getToken,
      ...(data.scopeDir === undefined ? {} : { claimScopeDir: data.scopeDir }),
    };
    try {
      return await settle(tool.handler(args as never, context), getToken);
    } catch (error) {
      if (error instanceof AuthorizationNeeded)
        return elicit(error.elicitation, tool.name, args, data, era, ctx);
      if (error instanceof StorageUnavailableError) {
        // The endpoint turns this into a 503; the tool error is only what a client sees when part of the
        // answer was already streamed.
        data.outage.error ??= error;
        return toolError('The service is temporarily unavailable; try again in a moment.');
      }
      logger.warn(
        {
          event: 'tool_failed',
          toolModuleId: module.toolModuleId,
          tool: tool.name,
          err: error instanceof Error ? error.name : typeof error,
        },
        'mcp: tool failed',
      );
      return toolError(error instanceof Error ? error.message : String(error));
    }
  }

  return {
    register(server, module, tool, data, era) {
      const config = {
        ...(tool.title === undefined ? {} : { title: tool.title }),
        ...(tool.description === undefined ? {} : { description: tool.description }),
        ...(tool.annotations === undefined ? {} : { annotations: tool.annotations }),
      };
      if (tool.inputSchema === undefined) {
        server.registerTool(tool.name, config, (ctx: ServerContext) =>
          call(module, tool, {}, data, era, ctx),
        );
      } else {
        server.registerTool(
          tool.name,
          { ...config, inputSchema: tool.inputSchema },
          (args: unknown, ctx: ServerContext) => call(module, tool, args, data, era, ctx),
        );
      }
    },
  };
}
