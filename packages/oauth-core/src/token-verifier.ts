import { MACHINE_SUBJECT_PREFIX } from './bearer.js';
import { OAuthError } from './errors.js';
import type { ServerContext } from './options.js';
import { scopeList } from './scopes.js';
import type { Tenant } from './tenant.js';
import { audiences, verifyAccessTokenJwt } from './tokens.js';

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
   * `sub` (the user id, or `client:<client_id>`), `subjectType` (`'user'`, or `'client'` for tokens a
   * client obtained for itself), `tenantId`, `jti`, and `act` when the token was exchanged.
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
   * Scope and subject policy are the resource's to apply (`@keyhold/mcp` does).
   */
  verifyAccessToken(token: string): Promise<AuthInfo>;
}

/** Verifies a token for a tenant's protected resource (or `resource`); see {@link OAuthTokenVerifier}. */
export async function verifyForResource(
  context: ServerContext,
  tenant: Tenant | undefined,
  token: string,
  resource: string | undefined,
): Promise<AuthInfo> {
  if (tenant === undefined) throw new OAuthError('invalid_token', 'unknown tenant');
  const now = context.clock.now();
  const verified = await verifyAccessTokenJwt(tenant.keys, token, tenant.issuer, now);
  if (!verified.ok) throw new OAuthError('invalid_token', verified.description);
  const claims = verified.claims;
  const audience = resource ?? tenant.resource;
  if (!audiences(claims).includes(audience)) {
    throw new OAuthError('invalid_token', 'the access token is not for this resource');
  }
  if (await context.storage.revokedAccessTokens.isRevoked(tenant.slug, claims.jti, now)) {
    throw new OAuthError('invalid_token', 'the access token was revoked');
  }
  return {
    token,
    clientId: claims.client_id,
    scopes: scopeList(claims.scope),
    expiresAt: claims.exp,
    resource: new URL(audience),
    extra: {
      sub: claims.sub,
      subjectType: claims.sub.startsWith(MACHINE_SUBJECT_PREFIX) ? 'client' : 'user',
      tenantId: tenant.slug,
      jti: claims.jti,
      ...(claims.act === undefined ? {} : { act: claims.act }),
    },
  };
}
