// `@keyhold/claim-codes/mcp`: claim scoping of MCP sessions, runtime-neutral apart from the SDK peer.
export type { RequestHeaders } from './mcp/claim-code-input.js';
export {
  CLAIM_CODE_HEADER,
  CLAIM_CODE_QUERY_PARAMETER,
  claimCodeFromHeaders,
  claimCodeFromUrl,
} from './mcp/claim-code-input.js';
export type {
  ClaimSession,
  ClaimSessionOptions,
  SessionScope,
  SessionScopeReason,
} from './mcp/claim-session.js';
export { createClaimSession } from './mcp/claim-session.js';
export type {
  ModuleTool,
  RegisterToolModulesOptions,
  ToolCallExtra,
  ToolModule,
} from './mcp/tool-modules.js';
export { registerToolModules } from './mcp/tool-modules.js';
