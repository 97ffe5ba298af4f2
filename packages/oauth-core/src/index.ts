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
export type { ConnectedAppsStrings, ConnectedAppsView } from './connected-apps-screen.js';
export type { ConsentLookup, ConsentRequest } from './consent-request.js';
export type { ConsentStrings, ConsentView } from './consent-screen.js';
export type { OAuthCoreErrorCode, OAuthErrorCode } from './errors.js';
export { OAuthCoreError, OAuthError } from './errors.js';
export { AUTH_EVENT_REASONS } from './events/reasons.js';
export type { GrantAdministration, GrantRevocation } from './grant-administration.js';
export type { EnterpriseIssuer } from './jwt-bearer/enterprise-issuers.js';
export type { SigningAlgorithm, SigningKeyConfig } from './keys.js';
export { generateSigningKey } from './keys.js';
export { createMemoryStorage } from './memory-store.js';
export type { AuthMetrics } from './metrics-types.js';
export type {
  AuthorizationServerOptions,
  ClientAssertionOptions,
  ConsentOptions,
  RenderedConsentPage,
  TenantConfig,
  TenantLookup,
} from './options.js';
export type { ProtectedResource, ProtectedResourceOptions } from './protected-resource.js';
export type { RateLimitsOptions } from './rate-limits.js';
export type {
  InitialAccessTokenConfig,
  RegistrationDecision,
  RegistrationPolicy,
  RegistrationPolicyInput,
} from './registration-policy.js';
export { defaultRegistrationPolicy } from './registration-policy.js';
export { createStaticTenants } from './static-tenants.js';
// The records and stores a store author implements are `@keyhold/oauth-core/storage`.
export type {
  AuthEvent,
  ClientJwks,
  ClientRecord,
  GrantListOptions,
  GrantRecord,
  OAuthStorage,
  TokenEndpointAuthMethod,
} from './storage.js';
export type { AuthInfo, OAuthTokenVerifier } from './token-verifier.js';
export type { AccessTokenClaims } from './tokens.js';
export type { UserClaimsHook } from './user-claims.js';
