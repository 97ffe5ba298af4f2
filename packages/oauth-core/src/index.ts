export type { AuthorizationServer } from './authorization-server.js';
export { createAuthorizationServer } from './authorization-server.js';
export type { AccessTokenCheck, VerifyAccessTokenOptions } from './bearer.js';
// CIMD is an option of the server (`cimd`); federated login is `@keyhold/oauth-core/federated`.
export type { CimdOptions } from './cimd/options.js';
export type {
  ClientAdministration,
  ClientProvisionInput,
  ProvisionedClient,
} from './client-administration.js';
export type { ClientMetadata } from './client-metadata.js';
export type { ConsentDecision, ConsentLookup, ConsentRequest } from './consent-request.js';
export type {
  ConsentDetails,
  ConsentRecipient,
  ConsentStrings,
  ConsentView,
} from './consent-screen.js';
export type { OAuthCoreErrorCode, OAuthErrorCode } from './errors.js';
export { OAuthCoreError, OAuthError } from './errors.js';
export type { ProtectedResourceMetadata } from './handlers/metadata.js';
export type {
  AsymmetricAlgorithm,
  SigningAlgorithm,
  SigningKeyConfig,
  SymmetricAlgorithm,
} from './keys.js';
export { generateSigningKey } from './keys.js';
export { createMemoryStorage } from './memory-store.js';
export type { AuthEventAttributes, AuthMetrics, CimdFetchAttributes } from './metrics-types.js';
export type {
  AuthorizationServerOptions,
  ClientAssertionOptions,
  ConsentOptions,
  RenderedConsentPage,
  TenantConfig,
  TenantLookup,
} from './options.js';
export type {
  ProtectedResource,
  ProtectedResourceOptions,
  ResourceAccess,
} from './protected-resource.js';
export type { RateLimitedEndpoint, RateLimitsOptions } from './rate-limits.js';
export type {
  InitialAccessTokenConfig,
  PresentedInitialAccessToken,
  RegistrationDecision,
  RegistrationPolicy,
  RegistrationPolicyInput,
} from './registration-policy.js';
export { defaultRegistrationPolicy } from './registration-policy.js';
export { createStaticTenants } from './static-tenants.js';
// The records and stores a store author implements are `@keyhold/oauth-core/storage`.
export type {
  ApplicationType,
  ClientJwk,
  ClientJwks,
  ClientListOptions,
  ClientRecord,
  ClientRegistration,
  OAuthStorage,
  TokenEndpointAuthMethod,
} from './storage.js';
export type { AuthInfo, OAuthTokenVerifier } from './token-verifier.js';
export type { AccessTokenClaims, ActorClaim } from './tokens.js';
export type { UserClaims, UserClaimsHook } from './user-claims.js';
