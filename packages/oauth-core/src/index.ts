export type { AuthorizationServer } from './authorization-server.js';
export { createAuthorizationServer } from './authorization-server.js';
export type { AccessTokenCheck, VerifyAccessTokenOptions } from './bearer.js';
// CIMD (federated login is `@keyhold/oauth-core/federated`, the SSRF-safe fetch `@keyhold/oauth-core/node`)
export type { CimdFetchRateLimit } from './cimd/fetch-budget.js';
export type { CimdFetch } from './cimd/fetch-contract.js';
export type {
  JwksResolution,
  JwksResolveOptions,
  JwksResolver,
  JwksResolverOptions,
} from './cimd/jwks-resolver.js';
export { createJwksResolver } from './cimd/jwks-resolver.js';
export type { CimdResolverOptions } from './cimd/resolver.js';
export { createCimdResolver } from './cimd/resolver.js';
export type {
  CimdErrorCode,
  CimdResolution,
  CimdResolveContext,
  CimdResolver,
  ClientMetadataDocument,
} from './cimd/types.js';
export type {
  ClientAdministration,
  ClientAdministrationOptions,
  ClientProvisionInput,
  ProvisionedClient,
} from './client-administration.js';
export { createClientAdministration } from './client-administration.js';
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
