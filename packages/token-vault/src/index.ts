export type { AskContext, AskingMethod, RewrapSummary, TokenBroker, TokenOutcome } from './broker.js';
export { createTokenBroker } from './broker.js';
export type { ElicitationDetails, ElicitationToolResult, UrlElicitationParams } from './elicitation.js';
export { ElicitationRequiredError } from './elicitation.js';
export type { TokenVaultErrorCode } from './errors.js';
export { TokenVaultError } from './errors.js';
export {
  createMemoryBrokerStorage,
  createMemoryGrantStore,
  createMemoryProviderAuthorizationStore,
  createMemoryRefreshLock,
} from './memory-store.js';
export type { AuthorizationCompleteEvent, TokenBrokerOptions } from './options.js';
export type {
  BuiltInProviderId,
  BuiltInProviderRegistration,
  CustomProviderRegistration,
  ProviderRegistration,
} from './providers.js';
export type {
  ElicitationRecord,
  Grant,
  GrantKey,
  GrantStore,
  PendingAuthorization,
  ProviderAuthorizationStore,
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
