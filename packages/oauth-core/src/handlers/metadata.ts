import type { HandlerResult } from '@keyhold/core';
import { jsonResult } from '@keyhold/internal';
import {
  ID_JAG_GRANT_PROFILE,
  JWT_BEARER_GRANT,
  offersIdJag,
  offersJwtBearer,
} from '../grants/jwt-bearer.js';
import type { ServerContext } from '../options.js';
import type { TokenEndpointAuthMethod } from '../storage.js';
import type { Tenant } from '../tenant.js';
import { RELEASABLE_CLAIMS } from '../user-claims.js';
import { SUPPORTED_GRANT_TYPES } from './token.js';

const CACHE = { 'cache-control': 'public, max-age=300', 'access-control-allow-origin': '*' };

import { CLIENT_ASSERTION_ALGORITHMS } from '../client-keys.js';

const SECRET_AUTH_METHODS: readonly TokenEndpointAuthMethod[] = [
  'none',
  'client_secret_basic',
  'client_secret_post',
];

/** The scopes a tenant advertises: its `scopesSupported`, or `openid` and its resource scopes. */
export function advertisedScopes(tenant: Tenant): readonly string[] {
  return tenant.scopesSupported ?? [...new Set(['openid', ...tenant.resourceScopes])];
}

/**
 * The scopes the protected resource metadata advertises. MCP clients request exactly this list when the
 * challenge names none, so it carries the resource scopes and never `offline_access` (which only governs
 * refresh tokens, which Keyhold issues by grant type).
 */
export function resourceAdvertisedScopes(tenant: Tenant): readonly string[] {
  return [...new Set([...advertisedScopes(tenant), ...tenant.resourceScopes])].filter(
    (scope) => scope !== 'offline_access',
  );
}

/**
 * Authorization server metadata (RFC 8414), which doubles as the OpenID configuration: it advertises exactly
 * what works, so CIMD support appears only when a resolver is configured.
 */
export function authorizationServerMetadata(context: ServerContext, tenant: Tenant): HandlerResult {
  const issuer = tenant.issuer;
  // private_key_jwt is advertised only when it works: the storage can keep assertion jtis single use.
  const offered: readonly TokenEndpointAuthMethod[] =
    context.clientAssertions !== undefined
      ? [...SECRET_AUTH_METHODS, 'private_key_jwt']
      : SECRET_AUTH_METHODS;
  // A tenant may accept fewer (tokenEndpointAuthMethods): advertise only what it accepts, in the same order.
  const accepted = tenant.authMethods;
  const authMethods = accepted ? offered.filter((method) => accepted.has(method)) : offered;
  // The token endpoint list is what a client may register: registration refuses client_secret_post with the
  // authorization_code grant (the spec requires HTTP Basic there), so a client that picked it from this list
  // would be stuck. It stays accepted at /token from clients registered with it (client_credentials, token
  // exchange) and at /revoke and /introspect from every client with a secret, so those lists keep it. Only a
  // tenant that accepts post but not Basic still lists it for the token endpoint: it is its only secret method.
  const tokenAuthMethods = authMethods.includes('client_secret_basic')
    ? authMethods.filter((method) => method !== 'client_secret_post')
    : authMethods;
  const assertions = authMethods.includes('private_key_jwt');
  const signingAlgs = assertions ? { values: CLIENT_ASSERTION_ALGORITHMS } : undefined;
  return jsonResult(
    200,
    {
      issuer,
      authorization_endpoint: `${issuer}/authorize`,
      token_endpoint: `${issuer}/token`,
      registration_endpoint: `${issuer}/register`,
      revocation_endpoint: `${issuer}/revoke`,
      introspection_endpoint: `${issuer}/introspect`,
      jwks_uri: `${issuer}/.well-known/jwks.json`,
      userinfo_endpoint: `${issuer}/userinfo`,
      response_types_supported: ['code'],
      response_modes_supported: ['query'],
      // Only where it works (ID-JAG §7.2, SEP-1933): the tenant trusts an enterprise IdP or a workload
      // issuer, and jtis can be spent once; the id-jag profile only for the former.
      grant_types_supported: offersJwtBearer(context, tenant)
        ? [...SUPPORTED_GRANT_TYPES, JWT_BEARER_GRANT]
        : SUPPORTED_GRANT_TYPES,
      ...(offersIdJag(context, tenant)
        ? { authorization_grant_profiles_supported: [ID_JAG_GRANT_PROFILE] }
        : {}),
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: tokenAuthMethods,
      ...(signingAlgs ? { token_endpoint_auth_signing_alg_values_supported: signingAlgs.values } : {}),
      revocation_endpoint_auth_methods_supported: authMethods,
      ...(signingAlgs ? { revocation_endpoint_auth_signing_alg_values_supported: signingAlgs.values } : {}),
      introspection_endpoint_auth_methods_supported: authMethods,
      ...(signingAlgs
        ? { introspection_endpoint_auth_signing_alg_values_supported: signingAlgs.values }
        : {}),
      scopes_supported: advertisedScopes(tenant),
      authorization_response_iss_parameter_supported: true,
      id_token_signing_alg_values_supported: [tenant.keys.active.alg],
      subject_types_supported: ['public'],
      // Without a userClaims hook userinfo can only ever answer `sub`.
      claims_supported: context.userClaims === undefined ? ['sub'] : RELEASABLE_CLAIMS,
      prompt_values_supported: ['none', 'consent'],
      // Stated, not omitted: OpenID Discovery reads a missing request_uri_parameter_supported as true.
      request_parameter_supported: false,
      request_uri_parameter_supported: false,
      // Advertised only when a document may be fetched: a resolver, and a host on the tenant's allowlist.
      client_id_metadata_document_supported:
        context.cimdResolver !== undefined && (tenant.config.allowedCimdDomains?.length ?? 0) > 0,
      // RFC 9449 §5.1: present exactly when DPoP works (a spend-once store keeps proofs single use).
      ...(context.dpop ? { dpop_signing_alg_values_supported: context.dpop.algorithms } : {}),
    },
    CACHE,
  );
}

/**
 * A protected resource metadata document (RFC 9728 §2).
 *
 * @example
 * ```ts
 * const document: ProtectedResourceMetadata | undefined = await server.protectedResource('demo').metadata();
 * document?.scopes_supported;
 * ```
 */
export interface ProtectedResourceMetadata {
  readonly resource: string;
  readonly authorization_servers: readonly string[];
  readonly bearer_methods_supported: readonly string[];
  readonly scopes_supported: readonly string[];
  /** The DPoP proof algorithms the resource accepts (RFC 9728 §2), when DPoP is on. */
  readonly dpop_signing_alg_values_supported?: readonly string[];
  /** Whether the resource serves DPoP-bound tokens only (RFC 9728 §2), when DPoP is on. */
  readonly dpop_bound_access_tokens_required?: boolean;
}

/** The RFC 9728 document of one of the tenant's resources: the scopes come from the tenant's configuration. */
export function protectedResourceDocument(
  context: ServerContext,
  tenant: Tenant,
  resource: string,
  dpopRequired = false,
): ProtectedResourceMetadata {
  return {
    resource,
    authorization_servers: [tenant.issuer],
    bearer_methods_supported: ['header'],
    scopes_supported: resourceAdvertisedScopes(tenant),
    ...(context.dpop === undefined
      ? {}
      : {
          dpop_signing_alg_values_supported: context.dpop.algorithms,
          dpop_bound_access_tokens_required: dpopRequired,
        }),
  };
}

/** Protected resource metadata (RFC 9728) for the tenant's MCP resource. */
export function protectedResourceMetadata(context: ServerContext, tenant: Tenant): HandlerResult {
  return jsonResult(200, protectedResourceDocument(context, tenant, tenant.resource), CACHE);
}

/** The tenant's JWKS: the public keys of every asymmetric signing key, active or not. */
export function jwksDocument(tenant: Tenant): HandlerResult {
  return jsonResult(200, { keys: tenant.keys.publicJwks }, CACHE);
}
