export type { OAuthAsk } from './ask.js';
export type { AskContext, AskingMethod, RewrapSummary, TokenBroker, TokenOutcome } from './broker.js';
export { createTokenBroker } from './broker.js';
export type { ElicitationDetails, ElicitationToolResult, UrlElicitationParams } from './elicitation.js';
export { ElicitationRequiredError } from './elicitation.js';
export type { TokenVaultErrorCode } from './errors.js';
export { TokenVaultError } from './errors.js';
export {
  createMemoryGrantStore,
  createMemoryPendingAuthorizationStore,
  createMemoryRefreshLock,
  createMemoryStorage,
} from './memory-store.js';
export type { AuthorizationCompleteEvent, TokenBrokerOptions } from './options.js';
export type { PkcePair } from './pkce.js';
export { createPkcePair, s256Challenge } from './pkce.js';
export type {
  BuiltInProviderId,
  BuiltInProviderRegistration,
  CustomProviderRegistration,
  Provider,
  ProviderRegistration,
} from './providers.js';
export { resolveProvider } from './providers.js';
export { canonicalScopes } from './scopes.js';
export { STATE_MAX_AGE_MS } from './state.js';
export type {
  ElicitationRecord,
  Grant,
  GrantKey,
  GrantStore,
  PendingAuthorization,
  PendingAuthorizationStore,
  RefreshLock,
  StoredGrant,
  TokenVaultStorage,
} from './storage.js';
export type {
  GeneratedDataKey,
  KeyManagementService,
  KmsVault,
  KmsVaultOptions,
} from './vault/kms-vault.js';
export { createKmsVault } from './vault/kms-vault.js';
export type { KeyDerivationEvent, LocalVaultOptions } from './vault/local-vault.js';
export { createLocalVault } from './vault/local-vault.js';
export type { Vault, VaultBinding } from './vault/vault.js';
