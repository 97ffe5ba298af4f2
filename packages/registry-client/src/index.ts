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
  Converted,
  OfficialImport,
  ProviderToServerJsonOptions,
  ServerJson,
  ServerJsonArgument,
  ServerJsonInput,
  ServerJsonPackage,
  ServerJsonRemote,
} from './official-registry.js';
export {
  importOfficialServerList,
  providerToServerJson,
  SERVER_JSON_SCHEMA_URL,
  serverJsonToProvider,
} from './official-registry.js';
export type { HttpAuth, HttpConfig, Provider, ProviderMap, ProviderSetup, StdioConfig } from './provider.js';
export { parseProvider, parseProviderMap, providerSchema } from './provider.js';
export type { ProviderIndex } from './search.js';
export { createProviderIndex, searchProviders } from './search.js';
