import { KeyholdError } from '@keyhold/core';
import type { OptionValidators } from '@keyhold/internal';
import { optionValidators } from '@keyhold/internal';

/**
 * The codes an {@link OAuthError} carries: the OAuth error codes of RFC 6749, 6750, 7591, 8693, 8707 and
 * OIDC that this server answers with (OIDC Core §6 and RFC 9101 for `request_not_supported` and
 * `request_uri_not_supported`, RFC 9449 for `invalid_dpop_proof` and `use_dpop_nonce`), and `rate_limited` (429 with `Retry-After`, when `rateLimits` is set).
 * Codes are API: they are added, never renamed.
 *
 * @example
 * ```ts
 * import { OAuthError } from '@keyhold/oauth-core';
 * const error = new OAuthError('invalid_grant', 'the authorization code has expired');
 * error.status; // 400
 * ```
 */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'unsupported_response_type'
  | 'unsupported_token_type'
  | 'invalid_scope'
  | 'invalid_target'
  | 'access_denied'
  | 'login_required'
  | 'consent_required'
  | 'invalid_redirect_uri'
  | 'invalid_client_metadata'
  | 'invalid_token'
  | 'insufficient_scope'
  | 'server_error'
  | 'rate_limited'
  | 'request_not_supported'
  | 'request_uri_not_supported'
  | 'invalid_dpop_proof'
  | 'use_dpop_nonce';

const STATUS: Readonly<Record<OAuthErrorCode, number>> = {
  invalid_request: 400,
  invalid_client: 401,
  invalid_grant: 400,
  unauthorized_client: 400,
  unsupported_grant_type: 400,
  unsupported_response_type: 400,
  unsupported_token_type: 400,
  invalid_scope: 400,
  invalid_target: 400,
  access_denied: 403,
  login_required: 401,
  consent_required: 403,
  invalid_redirect_uri: 400,
  invalid_client_metadata: 400,
  invalid_token: 401,
  insufficient_scope: 403,
  server_error: 500,
  rate_limited: 429,
  request_not_supported: 400,
  request_uri_not_supported: 400,
  invalid_dpop_proof: 400,
  use_dpop_nonce: 400,
};

/**
 * A protocol failure, the wire signal of `@keyhold/oauth-core`: inside the server it is thrown as an
 * `OAuthError` and the handler boundary turns it into RFC 6749 JSON with {@link OAuthError.status}. Misuse
 * (bad options) is an {@link OAuthCoreError} instead, and is never answered on the wire.
 *
 * @example
 * ```ts
 * throw new OAuthError('invalid_grant', 'the authorization code has expired');
 * ```
 */
export class OAuthError extends KeyholdError<OAuthErrorCode> {
  /** The HTTP status the error is answered with. */
  readonly status: number;

  constructor(code: OAuthErrorCode, description: string, options?: { cause?: unknown; status?: number }) {
    super(code, description, options);
    this.status = options?.status ?? STATUS[code];
  }
}

/** The codes an {@link OAuthCoreError} carries. */
export type OAuthCoreErrorCode = 'ERR_INVALID_OPTIONS' | 'ERR_FORBIDDEN_ADDRESS' | 'ERR_CLIENT_EXISTS';

/**
 * What `@keyhold/oauth-core` throws to its caller, never answered on the wire: `ERR_INVALID_OPTIONS` for
 * misuse, options (or a tenant configuration) that fail validation; `ERR_FORBIDDEN_ADDRESS` when the SSRF-safe
 * fetch (the third argument of a `cimd.fetch`) refuses an address; the resolution then fails with
 * `forbidden_address`; `ERR_CLIENT_EXISTS` when `server.clients.provision` is given a `clientId` another
 * client holds.
 *
 * @example
 * ```ts
 * import { createAuthorizationServer, createMemoryStorage, OAuthCoreError } from '@keyhold/oauth-core';
 * try {
 *   createAuthorizationServer({ baseUrl: 'ftp://x', tenants: { get: () => undefined }, storage: createMemoryStorage() });
 * } catch (error) {
 *   if (error instanceof OAuthCoreError && error.code === 'ERR_INVALID_OPTIONS') console.error(error.message);
 * }
 * ```
 */
export class OAuthCoreError extends KeyholdError<OAuthCoreErrorCode> {}

/** The option checks of this package, throwing {@link OAuthCoreError} with `ERR_INVALID_OPTIONS` (internal). */
export const optionCheck: OptionValidators = optionValidators(OAuthCoreError);
