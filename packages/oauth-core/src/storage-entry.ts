// The `@keyhold/oauth-core/storage` entry: the contracts a store author implements (the stores behind
// `OAuthStorage` and their records). A host needs none of them: it passes an `OAuthStorage` (main entry) that a
// store package built. The conformance suite every store runs is `describeOAuthStorageConformance` of `./testing`.
export type {
  ApplicationType,
  AuthEventQuery,
  AuthEventStore,
  AuthorizationCodeRecord,
  AuthorizationCodeStore,
  ClientBlockRecord,
  ClientBlockStore,
  ClientJwk,
  ClientListOptions,
  ClientRegistration,
  ClientStore,
  ClientType,
  ConsentRecord,
  ConsentStore,
  GrantFilter,
  GrantRecordStore,
  PendingAuthorizationRecord,
  PendingAuthorizationStore,
  RefreshTokenRecord,
  RefreshTokenRotation,
  RefreshTokenRotationOutcome,
  RefreshTokenStore,
  RevokedAccessTokenStore,
} from './storage.js';
