// The `@keyhold/token-vault/storage` entry: the contracts a store author implements (the three stores behind
// `TokenVaultStorage`) and the records they hold. A host needs none of them: it passes a `TokenVaultStorage`
// (main entry) that a store package built. The conformance suite every store runs is
// `describeTokenVaultStorageConformance` of `./testing`.
export type {
  ElicitationRecord,
  Grant,
  GrantKey,
  GrantStore,
  PendingAuthorization,
  ProviderAuthorizationStore,
  RefreshLock,
  StoredGrant,
} from './storage.js';
