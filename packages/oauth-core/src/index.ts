// The public barrel. This package's issue fills it; until then it exports nothing.

// CIMD, metrics and federated login
export { isForbiddenAddress } from './cimd/address.js';
export type { ClientIdUrlCheck } from './cimd/client-id-url.js';
export { checkClientIdUrl, isHostAllowed, isMetadataDocumentClientId } from './cimd/client-id-url.js';
export type { CimdResolverOptions } from './cimd/resolver.js';
export { createCimdResolver } from './cimd/resolver.js';
export type { CimdFetch, DnsLookup, SafeFetchOptions } from './cimd/safe-fetch.js';
export { createSafeFetch, ForbiddenAddressError } from './cimd/safe-fetch.js';
export type { CimdErrorCode, CimdResolution, CimdResolver, ClientMetadataDocument } from './cimd/types.js';
export { createMemoryLoginTransactionStore, createMemoryUserStore } from './federated/memory-store.js';
export type {
  FederatedIdentity,
  LoginTransaction,
  LoginTransactionStore,
  UserStore,
} from './federated/storage.js';
export type { AuthEventAttributes, AuthMetrics, CimdFetchAttributes } from './metrics-types.js';
export { noopMetrics } from './metrics-types.js';
