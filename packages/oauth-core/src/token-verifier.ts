import { MACHINE_SUBJECT_PREFIX, validateAccessToken, WORKLOAD_SUBJECT_PREFIX } from './bearer.js';
import { OAuthError } from './errors.js';
import type { ServerContext } from './options.js';
import { scopeList } from './scopes.js';
import type { Tenant } from './tenant.js';
import type { AccessTokenClaims } from './tokens.js';

/**
 * What a verified access token says, in the MCP SDK's `AuthInfo` shape (v1 and v2 alike), so the
 * verifier plugs into `@keyhold/mcp` and into the SDK's own bearer helpers without this package
 * importing the SDK.
 *
 * @example
 * ```ts
 * const info: AuthInfo = await verifier.verifyAccessToken(token);
 * info.extra?.['sub']; // the user id
 * ```
 */
export interface AuthInfo {
  readonly token: string;
  readonly clientId: string;
  readonly scopes: string[];
  /** Seconds since the epoch (the JWT `exp`). */
  readonly expiresAt?: number;
  /** The protected resource the token is for. */
  readonly resource?: URL;
  /**
   * `sub` (the user id, `client:<client_id>` or `workload:<sub>`), `subjectType` (`'user'`, `'client'` for
   * tokens a client obtained for itself, `'workload'` for tokens a workload obtained with its own JWT),
   * `tenantId`, `jti`, and `act` when the token was exchanged.
   */
  readonly extra?: Record<string, unknown>;
}

/**
 * The MCP SDK's `OAuthTokenVerifier` shape.
 */
export interface OAuthTokenVerifier {
  /**
   * The token's `AuthInfo`. Throws an {@link OAuthError} with code `invalid_token` for a token that is
   * malformed, badly signed, expired, for another resource or revoked (any other error is an outage:
   * `@keyhold/core`'s `StorageUnavailableError` when storage could not be asked, which a resource answers
   * with 503, never 401).
   * This is the token half of the bearer policy; the SDK's bearer middleware applies scopes, and
   * `server.protectedResource(tenant).verify` applies the whole policy (what `@keyhold/mcp` uses).
   */
  verifyAccessToken(token: string): Promise<AuthInfo>;
}

// Tools that act differently for machines read this rather than parse the subject's prefix themselves.
function subjectTypeOf(sub: string): 'user' | 'client' | 'workload' {
  if (sub.startsWith(MACHINE_SUBJECT_PREFIX)) return 'client';
  return sub.startsWith(WORKLOAD_SUBJECT_PREFIX) ? 'workload' : 'user';
}

/** The SDK-shaped `AuthInfo` of verified claims for a tenant's resource. */
export function authInfoOf(
  tenant: Tenant,
  token: string,
  claims: AccessTokenClaims,
  resource: string,
): AuthInfo {
  return {
    token,
    clientId: claims.client_id,
    scopes: scopeList(claims.scope),
    expiresAt: claims.exp,
    resource: new URL(resource),
    extra: {
      sub: claims.sub,
      subjectType: subjectTypeOf(claims.sub),
      tenantId: tenant.slug,
      jti: claims.jti,
      ...(claims.act === undefined ? {} : { act: claims.act }),
    },
  };
}

/**
 * Verifies a token for a tenant's protected resource (or `resource`) with the token half of the bearer
 * policy (bearer.ts); see {@link OAuthTokenVerifier}.
 */
export async function verifyForResource(
  context: ServerContext,
  tenant: Tenant | undefined,
  token: string,
  resource: string | undefined,
): Promise<AuthInfo> {
  if (tenant === undefined) throw new OAuthError('invalid_token', 'unknown tenant');
  const audience = resource ?? tenant.resource;
  const valid = await validateAccessToken(context, tenant, token, audience);
  if (!valid.ok) throw new OAuthError('invalid_token', valid.description);
  // This verifier sees the token alone, never a proof: a DPoP-bound token here would be a Bearer downgrade
  // (RFC 9449 §7.2). protectedResource().verify checks the proof.
  if (valid.claims.cnf !== undefined) {
    throw new OAuthError(
      'invalid_token',
      'the access token is DPoP-bound: present it with the DPoP scheme and a proof',
    );
  }
  return authInfoOf(tenant, token, valid.claims, audience);
}
