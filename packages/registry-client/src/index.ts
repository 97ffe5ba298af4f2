export type {
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
export type { McpProvider } from './mcp-provider.js';
