export { loadBundledProviders } from './bundled-providers.js';
export type {
  FallbackReason,
  LocalSource,
  ProviderListing,
  ProviderLookup,
  ProviderSearch,
  RegistryClient,
  RegistryClientOptions,
  RegistryHealth,
} from './client.js';
export { createRegistryClient } from './client.js';
export type { RegistryErrorCode } from './errors.js';
export { RegistryError } from './errors.js';
export type {
  HttpAuth,
  HttpConfig,
  McpProvider,
  McpProviderMap,
  McpProviderSetup,
  StdioConfig,
} from './mcp-provider.js';
export { parseProvider, parseProviderMap, providerSchema } from './mcp-provider.js';
export { serverJsonToProvider } from './official-registry/from-server-json.js';
export type {
  Converted,
  ServerJson,
  ServerJsonArgument,
  ServerJsonInput,
  ServerJsonPackage,
  ServerJsonRemote,
} from './official-registry/server-json.js';
export { SERVER_JSON_SCHEMA_URL } from './official-registry/server-json.js';
export type { OfficialImport } from './official-registry/server-list-import.js';
export { importOfficialServerList } from './official-registry/server-list-import.js';
export type { ProviderToServerJsonOptions } from './official-registry/to-server-json.js';
export { providerToServerJson } from './official-registry/to-server-json.js';
export type { ProviderIndex } from './search.js';
export { createProviderIndex, searchProviders } from './search.js';
