import { sha256Base64url } from '@keyhold/internal';
import type { ServerContext } from '../options.js';
import { pooledRandomToken } from '../random-pool.js';
import { scopeList } from '../scopes.js';
import type { ClientType } from '../storage.js';
import type { Tenant } from '../tenant.js';
import type { ActorClaim } from '../tokens.js';
import { signAccessToken, signIdToken } from '../tokens.js';
import { claimsFor } from '../user-claims.js';

/** What a token response carries (RFC 6749 §5.1, RFC 8693 §2.2.1, OIDC Core §3.1.3.3). */
export interface TokenResponseBody {
  readonly access_token: string;
  readonly token_type: 'Bearer' | 'DPoP';
  readonly expires_in: number;
  readonly refresh_token?: string;
  readonly scope?: string;
  readonly id_token?: string;
  readonly issued_token_type?: string;
}

export interface IssueInput {
  readonly clientId: string;
  readonly clientType: ClientType;
  readonly subject: string;
  /** The granted scope (canonical form); the access token may carry a narrower `accessScope`. */
  readonly scope: string;
  readonly accessScope?: string;
  readonly resources: readonly string[];
  readonly audience: readonly string[];
  /**
   * Issue a refresh token of this family (a new family when `familyId` is absent), or answer with
   * `rotated`, a refresh token the refresh grant's rotation already stored.
   */
  readonly refresh?: { readonly familyId?: string } | { readonly rotated: string } | false;
  /** Issue an id_token with these claims. */
  readonly idToken?: { readonly nonce?: string; readonly authTimeMs: number };
  readonly act?: ActorClaim;
  /** An upper bound on the access token's `exp` (seconds), e.g. the subject token's. */
  readonly notAfterSeconds?: number;
  /** The access token's `jti`, when chosen in advance (authorization codes pre-allocate it). */
  readonly accessTokenJti?: string;
  /** The grant record the tokens belong to (`grant_id` claim); see grant-records.ts. */
  readonly grantId?: string;
  /** The DPoP key the access token is bound to (RFC 9449 §6): `token_type` is then `DPoP`. */
  readonly jkt?: string;
  /**
   * The DPoP key a new refresh token is bound to: public clients' only (RFC 9449 §5), since a confidential
   * client's authentication already constrains its refresh tokens.
   */
  readonly refreshJkt?: string;
}

/** Signs the access token (and id_token), stores the refresh token, and builds the response body. */
export async function issueTokens(
  context: ServerContext,
  tenant: Tenant,
  input: IssueInput,
): Promise<TokenResponseBody> {
  const now = context.clock.now();
  const nowSeconds = Math.floor(now / 1000);
  let exp = nowSeconds + context.accessTokenTtlSeconds;
  if (input.notAfterSeconds !== undefined && input.notAfterSeconds < exp) exp = input.notAfterSeconds;
  const accessScope = input.accessScope ?? input.scope;
  const { token } = await signAccessToken(tenant.keys, {
    issuer: tenant.issuer,
    subject: input.subject,
    audience: input.audience,
    clientId: input.clientId,
    scope: accessScope,
    nowSeconds,
    expiresAtSeconds: exp,
    ...(input.act ? { act: input.act } : {}),
    ...(input.accessTokenJti === undefined ? {} : { jti: input.accessTokenJti }),
    ...(input.grantId === undefined ? {} : { grantId: input.grantId }),
    ...(input.jkt === undefined ? {} : { jkt: input.jkt }),
  });
  let refreshToken: string | undefined;
  if (input.refresh && 'rotated' in input.refresh) {
    refreshToken = input.refresh.rotated;
  } else if (input.refresh) {
    refreshToken = pooledRandomToken();
    await context.storage.refreshTokens.save(tenant.slug, {
      tokenHash: sha256Base64url(refreshToken),
      familyId: input.refresh.familyId ?? pooledRandomToken(16),
      clientId: input.clientId,
      clientType: input.clientType,
      userId: input.subject,
      scope: input.scope,
      resources: input.resources,
      createdAt: now,
      expiresAt: now + context.refreshTokenTtlMs,
      ...(input.refreshJkt === undefined ? {} : { jkt: input.refreshJkt }),
    });
  }
  let idToken: string | undefined;
  if (input.idToken) {
    // The same claims userinfo answers, filtered by the granted scope (OpenID Connect Core §5.4 allows both).
    const userClaims = await claimsFor(context, tenant, input.subject, scopeList(input.scope));
    idToken = await signIdToken(tenant.keys, {
      userClaims,
      issuer: tenant.issuer,
      subject: input.subject,
      clientId: input.clientId,
      ...(input.idToken.nonce === undefined ? {} : { nonce: input.idToken.nonce }),
      authTimeSeconds: Math.floor(input.idToken.authTimeMs / 1000),
      nowSeconds,
      expiresAtSeconds: nowSeconds + context.idTokenTtlSeconds,
    });
  }
  return {
    access_token: token,
    token_type: input.jkt === undefined ? 'Bearer' : 'DPoP',
    expires_in: exp - nowSeconds,
    ...(refreshToken ? { refresh_token: refreshToken } : {}),
    ...(accessScope === '' ? {} : { scope: accessScope }),
    ...(idToken ? { id_token: idToken } : {}),
  };
}
