// `@keyhold/mcp`: MCP serving for both protocol eras on the MCP SDK v2. Runtime-neutral: web `Request`
// in, `Response` out (on Node, `toNodeListener` of `@keyhold/adapter-node` mounts it); `./sdk-v1` serves
// hosts still on SDK v1.
export type { BrokerElicitation, McpTokenBroker } from './brokering.js';
export type { McpClaimCodes } from './claim-scope.js';
export type { McpEndpoint, McpEndpointOptions } from './endpoint.js';
export { createMcpEndpoint } from './endpoint.js';
export type { KeyholdMcpErrorCode } from './errors.js';
export { KeyholdMcpError } from './errors.js';
export type {
  McpEra,
  McpServedModule,
  McpToolModule,
  ModuleTool,
  Principal,
  ToolContext,
  ToolReturn,
} from './tool-module.js';
export { defineTool } from './tool-module.js';
