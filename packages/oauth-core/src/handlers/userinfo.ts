import type { HandlerRequest, HandlerResult } from '@keyhold/core';
import { jsonResult } from '@keyhold/internal';
import { bearerChallenge, isMachineSubject, presentsBearer } from '../bearer.js';
import { tokenRefusal } from '../grant-records.js';
import type { ServerContext } from '../options.js';
import type { RequestEvent } from '../request-event.js';
import { scopeList } from '../scopes.js';
import type { Tenant } from '../tenant.js';
import { verifyAccessTokenJwt } from '../tokens.js';
import { claimsFor } from '../user-claims.js';

const NO_STORE = { 'cache-control': 'no-store' };

/**
 * The UserInfo endpoint (OpenID Connect Core §5.3), GET or POST with `Authorization: Bearer`: `sub` and the
 * host's `userClaims` the token's scopes cover. Any unrevoked access token of this tenant's issuer is
 * accepted whatever its audience (the server that issued it is the one answering). Refusals are RFC 6750
 * §3 challenges: no error code without credentials, 401 `invalid_token` for a bad, revoked or machine
 * token (it names no user), 403 `insufficient_scope` (`scope="openid"`) for a token without `openid`.
 */
export async function userinfoHandler(
  context: ServerContext,
  tenant: Tenant,
  request: HandlerRequest,
  event: RequestEvent,
): Promise<HandlerResult> {
  const refuse = (error: 'invalid_token' | 'insufficient_scope', description: string): HandlerResult => {
    event.error_code = error;
    context.logger.info(
      {
        event: 'authentication_failed',
        reason: error,
        endpoint: 'userinfo',
        tenant: tenant.slug,
        detail: description,
      },
      'userinfo bearer token refused',
    );
    return bearerChallenge({
      realm: tenant.slug,
      error,
      description,
      ...(error === 'insufficient_scope' ? { status: 403 as const, scope: 'openid' } : {}),
    });
  };
  const authorization = request.headers['authorization'];
  if (!presentsBearer(authorization)) {
    // RFC 6750 §3.1: a request without Bearer credentials (none, or another scheme) gets no error code.
    return bearerChallenge({ realm: tenant.slug });
  }
  const match = /^Bearer +([A-Za-z0-9\-._~+/]+=*)\s*$/i.exec(authorization);
  if (!match?.[1]) return refuse('invalid_token', 'the Authorization header must be "Bearer <token>"');
  const now = context.clock.now();
  const verified = await verifyAccessTokenJwt(tenant.keys, match[1], tenant.issuer, now);
  if (!verified.ok) return refuse('invalid_token', verified.description);
  const claims = verified.claims;
  const refusal = await tokenRefusal(context, tenant, claims, now);
  if (refusal !== undefined) return refuse('invalid_token', refusal);
  if (claims.cnf !== undefined) {
    // Userinfo takes Bearer only; a bound token without its proof must not work (RFC 9449 §7.2).
    return refuse('invalid_token', 'the access token is DPoP-bound; userinfo accepts Bearer tokens only');
  }
  if (isMachineSubject(claims.sub)) {
    return refuse('invalid_token', 'a token a client or workload obtained for itself names no user');
  }
  const scopes = scopeList(claims.scope);
  if (!scopes.includes('openid')) return refuse('insufficient_scope', 'userinfo needs the openid scope');
  const released = await claimsFor(context, tenant, claims.sub, scopes);
  return jsonResult(200, { ...released, sub: claims.sub }, NO_STORE);
}
