// `@keyhold/registry-client/server-json`: interop with the official MCP registry's `server.json` format, for
// hosts and tools that import from it or publish to it. The client and the registry API never need it.

export { serverJsonToProvider } from './official-registry/from-server-json.js';
export type { Converted, ServerJson, ServerJsonInput } from './official-registry/server-json.js';
export type { OfficialImport } from './official-registry/server-list-import.js';
export { importOfficialServerList } from './official-registry/server-list-import.js';
export type { ProviderToServerJsonOptions } from './official-registry/to-server-json.js';
export { providerToServerJson } from './official-registry/to-server-json.js';
