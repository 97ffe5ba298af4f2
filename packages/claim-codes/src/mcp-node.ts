// `@keyhold/claim-codes/mcp-node`: the `node:http` wiring of claim-scoped MCP sessions, kept apart from the
// runtime-neutral `./mcp` so it can move into `@keyhold/adapter-node` without touching the rest.
export type { ScopedMcpHandler, ScopedMcpHandlerOptions } from './mcp/node-handler.js';
export { createScopedMcpHandler } from './mcp/node-handler.js';
