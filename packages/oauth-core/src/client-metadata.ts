import { isHostAllowed } from './cimd/client-id-url.js';
import { CLIENT_ASSERTION_ALGORITHMS, parseClientJwks } from './client-keys.js';
import { OAuthError } from './errors.js';
import { applicationTypeProblem, inferApplicationType, redirectUriProblem } from './redirect-uri.js';
import { formatScope, parseScope } from './scopes.js';
import type { ApplicationType, ClientJwks, TokenEndpointAuthMethod } from './storage.js';

/** The RFC 8693 grant type (also exported, with its token type, from `grants/token-exchange.ts`). */
const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
/** The RFC 7523 grant type (also exported from `grants/jwt-bearer.ts`): machine-gated, confidential clients only. */
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

/**
 * The grant types a client may be registered for. `authorization_code` and `refresh_token` keep a user
 * in the loop; the others (machine grants) need a host decision.
 *
 * @example
 * ```ts
 * const known = (grant: string): grant is ClientGrantType => (CLIENT_GRANT_TYPES as readonly string[]).includes(grant);
 * ```
 */
export const CLIENT_GRANT_TYPES: readonly [
  'authorization_code',
  'refresh_token',
  'client_credentials',
  'urn:ietf:params:oauth:grant-type:token-exchange',
  'urn:ietf:params:oauth:grant-type:jwt-bearer',
] = ['authorization_code', 'refresh_token', 'client_credentials', TOKEN_EXCHANGE, JWT_BEARER];

/**
 * One of {@link CLIENT_GRANT_TYPES}.
 *
 * @example
 * ```ts
 * const grants: ClientGrantType[] = ['client_credentials'];
 * ```
 */
export type ClientGrantType = (typeof CLIENT_GRANT_TYPES)[number];

/**
 * The grant types anonymous dynamic registration may use without a host decision: a user is always in the
 * loop (they consent in the browser).
 *
 * @example
 * ```ts
 * const gated = metadata.grantTypes.filter((grant) => !ANONYMOUS_GRANT_TYPES.includes(grant));
 * ```
 */
export const ANONYMOUS_GRANT_TYPES: readonly string[] = ['authorization_code', 'refresh_token'];

/**
 * Limits on what one client registration may store. Requests past them are refused with
 * `invalid_client_metadata` (or `invalid_redirect_uri`), never truncated.
 *
 * @example
 * ```ts
 * if (uris.length > CLIENT_METADATA_LIMITS.redirectUris) refuse();
 * ```
 */
export const CLIENT_METADATA_LIMITS: {
  /** Bytes of the registration request body (JSON). */
  readonly bodyBytes: number;
  readonly redirectUris: number;
  /** Characters of one redirect URI, client_uri or logo_uri. */
  readonly uriLength: number;
  readonly clientNameLength: number;
  readonly scopeLength: number;
  readonly tokenExchangeAudiences: number;
  readonly audienceLength: number;
} = {
  bodyBytes: 8 * 1024,
  redirectUris: 10,
  uriLength: 2048,
  clientNameLength: 256,
  scopeLength: 1024,
  tokenExchangeAudiences: 20,
  audienceLength: 2048,
};

/**
 * A client's registered metadata in this library's terms (RFC 7591 §2 names in camelCase), with defaults
 * filled in. What a {@link RegistrationPolicy} sees and may return trimmed, and what
 * `ClientAdministration.provision` takes.
 */
export interface ClientMetadata {
  readonly redirectUris: readonly string[];
  readonly grantTypes: readonly string[];
  readonly responseTypes: readonly string[];
  readonly tokenEndpointAuthMethod: TokenEndpointAuthMethod;
  readonly clientName?: string;
  readonly clientUri?: string;
  readonly logoUri?: string;
  /** Space-separated; absent means any scope the tenant offers (for client_credentials: none). */
  readonly scope?: string;
  /** The exact audiences the client may ask a token exchange for (needed for token exchange). */
  readonly tokenExchangeAudiences?: readonly string[];
  /** `private_key_jwt` only, exclusive with `jwks`: an https URL publishing the client's public keys. */
  readonly jwksUri?: string;
  /** `private_key_jwt` only, exclusive with `jwksUri`: the client's public keys by value. */
  readonly jwks?: ClientJwks;
  /** `private_key_jwt` only: the one algorithm the client signs with (one of `CLIENT_ASSERTION_ALGORITHMS`). */
  readonly tokenEndpointAuthSigningAlg?: string;
  /**
   * `web` (https redirect URIs only) or `native` (loopback http and private-use schemes too). Absent: inferred
   * from the redirect URIs (`native` when any is loopback or private-use); the checked metadata always has it.
   */
  readonly applicationType?: ApplicationType;
  /** RFC 9449 §5.2 `dpop_bound_access_tokens`: the client always proves a DPoP key at the token endpoint. */
  readonly dpopBoundAccessTokens?: boolean;
}

function invalid(description: string): OAuthError {
  return new OAuthError('invalid_client_metadata', description);
}

function httpUrl(value: string, name: string): void {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
    throw invalid(`${name} must be an http(s) URL`);
  }
  if (value.length > CLIENT_METADATA_LIMITS.uriLength) throw invalid(`${name} is too long`);
}

/**
 * Checks client metadata against the rules every client follows, however it is created, and answers it
 * in canonical form (grant types de-duplicated, scope sorted). Throws an `OAuthError`
 * (`invalid_client_metadata` or `invalid_redirect_uri`) naming what is wrong. It does not decide who may
 * use which grant: that is the registration policy's job. With `jwksUriDomains` (dynamic registration: the
 * tenant's fetch allowlist), a `jwks_uri` on any other host is refused, and with an empty list any
 * `jwks_uri` is (keys by value still work): this server fetches nothing the tenant did not allow.
 */
export function checkClientMetadata(
  metadata: ClientMetadata,
  scopesSupported: readonly string[] | undefined,
  jwksUriDomains?: readonly string[],
): ClientMetadata {
  const grantTypes = [...new Set(metadata.grantTypes)];
  for (const grant of grantTypes) {
    if (!(CLIENT_GRANT_TYPES as readonly string[]).includes(grant)) {
      throw invalid(`grant_types: "${grant}" is not a grant type this server supports`);
    }
  }
  if (grantTypes.length === 0) throw invalid('grant_types must name at least one grant type');
  const authMethod = metadata.tokenEndpointAuthMethod;
  if (!['none', 'client_secret_basic', 'client_secret_post', 'private_key_jwt'].includes(authMethod)) {
    throw invalid('token_endpoint_auth_method is not supported');
  }
  let jwksUri: string | undefined;
  let jwks: ClientJwks | undefined;
  let signingAlg: string | undefined;
  if (authMethod === 'private_key_jwt') {
    signingAlg = metadata.tokenEndpointAuthSigningAlg;
    if (
      signingAlg !== undefined &&
      !(CLIENT_ASSERTION_ALGORITHMS as readonly string[]).includes(signingAlg)
    ) {
      throw invalid(
        `token_endpoint_auth_signing_alg must be one of ${CLIENT_ASSERTION_ALGORITHMS.join(', ')}`,
      );
    }
    if ((metadata.jwksUri === undefined) === (metadata.jwks === undefined)) {
      throw invalid('private_key_jwt needs the client keys: give jwks_uri or jwks (exactly one)');
    }
    if (metadata.jwksUri !== undefined) {
      httpUrl(metadata.jwksUri, 'jwks_uri');
      const url = new URL(metadata.jwksUri);
      if (url.protocol !== 'https:' || url.username !== '' || url.password !== '' || url.hash !== '') {
        throw invalid('jwks_uri must be an https URL without user information or fragment');
      }
      if (jwksUriDomains !== undefined && !isHostAllowed(url.hostname, jwksUriDomains)) {
        throw invalid(
          jwksUriDomains.length === 0
            ? 'this server fetches no jwks_uri: give the keys by value (jwks)'
            : `jwks_uri host ${url.hostname} is not allowed by this server: give the keys by value (jwks)`,
        );
      }
      jwksUri = metadata.jwksUri;
    } else {
      const check = parseClientJwks(metadata.jwks);
      if (!check.ok) throw invalid(`jwks: ${check.description}`);
      jwks = check.jwks;
    }
  }
  // Keys given with another method are not kept: nothing would use them.
  const usesCode = grantTypes.includes('authorization_code');
  const redirectUris = [...new Set(metadata.redirectUris)];
  if (redirectUris.length > CLIENT_METADATA_LIMITS.redirectUris) {
    throw invalid(`redirect_uris may list at most ${CLIENT_METADATA_LIMITS.redirectUris} URIs`);
  }
  if (usesCode && redirectUris.length === 0) {
    throw new OAuthError(
      'invalid_redirect_uri',
      'redirect_uris is required for the authorization_code grant',
    );
  }
  for (const redirectUri of redirectUris) {
    if (redirectUri.length > CLIENT_METADATA_LIMITS.uriLength) {
      throw new OAuthError('invalid_redirect_uri', 'redirect_uri is too long');
    }
    const problem = redirectUriProblem(redirectUri, metadata.applicationType);
    if (problem) throw new OAuthError('invalid_redirect_uri', `redirect_uri ${problem}`);
  }
  if (metadata.dpopBoundAccessTokens !== undefined && typeof metadata.dpopBoundAccessTokens !== 'boolean') {
    throw invalid('dpop_bound_access_tokens must be a boolean');
  }
  const applicationType = metadata.applicationType ?? inferApplicationType(redirectUris);
  if (applicationType !== 'web' && applicationType !== 'native') {
    throw invalid('application_type must be "web" or "native"');
  }
  for (const redirectUri of redirectUris) {
    const problem = applicationTypeProblem(redirectUri, applicationType);
    if (problem) throw new OAuthError('invalid_redirect_uri', `redirect_uri ${problem}`);
  }
  if (grantTypes.includes('refresh_token') && !usesCode) {
    throw invalid('refresh_token is only issued with the authorization_code grant');
  }
  if (authMethod === 'none') {
    const needsSecret = grantTypes.filter(
      (grant) => grant === 'client_credentials' || grant === TOKEN_EXCHANGE || grant === JWT_BEARER,
    );
    if (needsSecret.length > 0) throw invalid(`public clients may not use ${needsSecret.join(', ')}`);
  }
  if (authMethod === 'client_secret_post' && usesCode) {
    // The spec requires HTTP Basic of confidential clients on the authorization_code grant.
    throw invalid('the authorization_code grant requires client_secret_basic for confidential clients');
  }
  const responseTypes = [...new Set(metadata.responseTypes)];
  if (responseTypes.some((type) => type !== 'code') || usesCode !== responseTypes.includes('code')) {
    throw invalid('response_types "code" goes with the authorization_code grant and only with it');
  }
  if (metadata.clientName !== undefined) {
    if (
      metadata.clientName.length === 0 ||
      metadata.clientName.length > CLIENT_METADATA_LIMITS.clientNameLength
    ) {
      throw invalid(`client_name must be 1 to ${CLIENT_METADATA_LIMITS.clientNameLength} characters`);
    }
  }
  if (metadata.clientUri !== undefined) httpUrl(metadata.clientUri, 'client_uri');
  if (metadata.logoUri !== undefined) httpUrl(metadata.logoUri, 'logo_uri');
  let scope: string | undefined;
  if (metadata.scope !== undefined) {
    if (metadata.scope.length > CLIENT_METADATA_LIMITS.scopeLength) throw invalid('scope is too long');
    const scopes = parseScope(metadata.scope);
    if (!scopes) throw invalid('scope is malformed');
    if (scopesSupported && !scopes.every((s) => scopesSupported.includes(s))) {
      throw invalid('scope names a scope this server does not offer');
    }
    scope = formatScope(scopes);
  }
  let audiences: string[] | undefined;
  if (metadata.tokenExchangeAudiences !== undefined) {
    if (!grantTypes.includes(TOKEN_EXCHANGE)) {
      throw invalid('token exchange audiences go with the token-exchange grant only');
    }
    audiences = [...new Set(metadata.tokenExchangeAudiences)];
    if (audiences.length > CLIENT_METADATA_LIMITS.tokenExchangeAudiences) {
      throw invalid(`at most ${CLIENT_METADATA_LIMITS.tokenExchangeAudiences} token exchange audiences`);
    }
    for (const audience of audiences) {
      if (audience === '' || /\s/.test(audience) || audience.length > CLIENT_METADATA_LIMITS.audienceLength) {
        throw invalid('a token exchange audience must be a non-empty string without spaces');
      }
    }
  }
  return {
    redirectUris,
    grantTypes,
    responseTypes,
    tokenEndpointAuthMethod: authMethod,
    ...(metadata.clientName === undefined ? {} : { clientName: metadata.clientName }),
    ...(metadata.clientUri === undefined ? {} : { clientUri: metadata.clientUri }),
    ...(metadata.logoUri === undefined ? {} : { logoUri: metadata.logoUri }),
    ...(scope === undefined ? {} : { scope }),
    ...(audiences === undefined ? {} : { tokenExchangeAudiences: audiences }),
    ...(jwksUri === undefined ? {} : { jwksUri }),
    ...(jwks === undefined ? {} : { jwks }),
    ...(signingAlg === undefined ? {} : { tokenEndpointAuthSigningAlg: signingAlg }),
    applicationType,
    ...(metadata.dpopBoundAccessTokens === true ? { dpopBoundAccessTokens: true } : {}),
  };
}
