import type { ApplicationType, ClientJwks } from '../storage.js';
import type { JwksResolver } from './jwks-resolver.js';

/**
 * Why a Client ID Metadata Document could not be used. These are the values of the
 * `mcp_auth.cimd_error` metric attribute; they never change once released.
 */
export type CimdErrorCode =
  | 'not_https'
  | 'fetch_failed'
  | 'http_error'
  | 'invalid_json'
  | 'client_id_mismatch'
  | 'missing_redirect_uris'
  | 'domain_not_allowed'
  | 'timeout'
  | 'too_large'
  | 'forbidden_address'
  | 'fetch_rate_limited';

/**
 * A validated client metadata document (MCP 2025-11-25, draft-ietf-oauth-client-id-metadata-document).
 * `client_id` equals the URL it was fetched from.
 */
export interface ClientMetadataDocument {
  readonly client_id: string;
  readonly client_name: string;
  readonly redirect_uris: readonly string[];
  readonly client_uri?: string;
  readonly logo_uri?: string;
  readonly grant_types?: readonly string[];
  readonly response_types?: readonly string[];
  readonly token_endpoint_auth_method?: string;
  /**
   * The methods the client can use, best first or not (the server picks: `private_key_jwt` over `none`).
   * Not an RFC 7591 member; clients such as ChatGPT publish it instead of `token_endpoint_auth_method`.
   */
  readonly token_endpoint_auth_methods_supported?: readonly string[];
  /** The `private_key_jwt` signing algorithm the client uses, when it names one. */
  readonly token_endpoint_auth_signing_alg?: string;
  /** Where the client publishes its public keys (https); exclusive with `jwks`. */
  readonly jwks_uri?: string;
  /** The client's public keys by value; exclusive with `jwks_uri`. */
  readonly jwks?: ClientJwks;
  /** `web` or `native` (OIDC Registration); absent: what the redirect URIs imply. */
  readonly application_type?: ApplicationType;
  readonly scope?: string;
  /** RFC 9449 §5.2: the client always proves a DPoP key at the token endpoint. */
  readonly dpop_bound_access_tokens?: boolean;
}

/**
 * The outcome of resolving a metadata-document client id. `cached` is true when no network request was made
 * (or a 304 revalidated the entry). On failure, `description` is safe to show the client; `detail` is for the
 * log only; `retryAfterSeconds` comes with `fetch_rate_limited` only (the document host's fetch budget is spent
 * until then; the authorization server answers 429 with `Retry-After`).
 */
export type CimdResolution =
  | { readonly ok: true; readonly document: ClientMetadataDocument; readonly cached: boolean }
  | {
      readonly ok: false;
      readonly error: CimdErrorCode;
      readonly description: string;
      readonly detail?: string;
      readonly retryAfterSeconds?: number;
    };

/**
 * What the authorization server tells a resolver about one resolution.
 *
 * @example
 * ```ts
 * const context: CimdResolveContext = { allowedDomains: tenant.cimdDomains, requesterIp: request.ip };
 * ```
 */
export interface CimdResolveContext {
  /** The tenant's allowlist of document hosts: nothing is fetched from any other host. */
  readonly allowedDomains: readonly string[];
  /**
   * The address of the request that needs the document (`HandlerRequest.ip`): a first fetch is charged to
   * its budget (`fetchRateLimit`). Absent: one shared bucket for every request without an address.
   */
  readonly requesterIp?: string | undefined;
}

/**
 * Resolves `https` client ids to their metadata documents. The authorization server calls it with the
 * tenant's domain allowlist; the allowlist is checked before any network request.
 *
 * @example
 * ```ts
 * const resolution = await resolver.resolve('https://app.example/oauth/client.json', { allowedDomains: ['app.example'] });
 * if (!resolution.ok) return invalidClient(resolution.description);
 * ```
 */
export interface CimdResolver {
  resolve(clientId: string, context: CimdResolveContext): Promise<CimdResolution>;
  /**
   * Fetches the `jwks_uri` key sets of `private_key_jwt` clients through the same fetch as the documents.
   * `createCimdResolver` provides it; the authorization server fetches key sets through it.
   */
  readonly jwks?: JwksResolver;
}
