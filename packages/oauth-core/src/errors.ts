import { KeyholdError } from '@keyhold/core';

/**
 * The codes an {@link OAuthError} carries: the OAuth error codes of RFC 6749, 6750, 7591, 8693, 8707 and
 * OIDC that this server answers with, `rate_limited` (429 with `Retry-After`, when `rateLimits` is set), plus `invalid_options` for a misconfiguration found at creation or
 * when a tenant's configuration is first used. Codes are API: they are added, never renamed.
 *
 * @example
 * ```ts
 * if (error instanceof OAuthError && error.code === 'invalid_options') throw error;
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
  | 'invalid_options'
  | 'rate_limited';

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
  invalid_options: 500,
  rate_limited: 429,
};

/**
 * The one error class of `@keyhold/oauth-core`. Inside the server a protocol failure is thrown as an
 * `OAuthError`; the handler boundary turns it into RFC 6749 JSON with {@link OAuthError.status}. It is
 * thrown to callers only for misuse (`invalid_options`).
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
