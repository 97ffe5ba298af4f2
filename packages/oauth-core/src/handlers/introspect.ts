import type { HandlerRequest, HandlerResult } from '@keyhold/core';
import { sha256Base64url } from '@keyhold/internal';
import { tokenRefusal } from '../grant-records.js';
import type { ServerContext } from '../options.js';
import type { RequestEvent } from '../request-event.js';
import { noStoreJson } from '../responses.js';
import type { Tenant } from '../tenant.js';
import { looksLikeJwt, verifyAccessTokenJwt } from '../tokens.js';
import { readTokenForm } from './revoke.js';

const INACTIVE = { active: false } as const;

/**
 * POST /introspect (RFC 7662) for access tokens (JWT) and refresh tokens. The resource servers the tenant
 * lists (`introspectionClientIds`, authenticated) may introspect any token of the tenant; every other client
 * only the tokens issued to it (RFC 7662 §4: the server decides who may ask about which tokens; a self-
 * registered client must not read other users' tokens). Anything expired, revoked, unknown or out of reach
 * is `{ "active": false }` (§2.2), never the token's contents.
 */
export async function introspectHandler(
  context: ServerContext,
  tenant: Tenant,
  request: HandlerRequest,
  event: RequestEvent,
): Promise<HandlerResult> {
  const { token, clientId, confidential } = await readTokenForm(context, tenant, request, event);
  const resourceServer = confidential && tenant.config.introspectionClientIds?.includes(clientId) === true;
  const now = context.clock.now();
  if (looksLikeJwt(token)) {
    const verified = await verifyAccessTokenJwt(tenant.keys, token, tenant.issuer, now);
    if (!verified.ok) return inactive(event);
    const claims = verified.claims;
    if (!resourceServer && claims.client_id !== clientId) return inactive(event);
    if ((await tokenRefusal(context, tenant, claims, now)) !== undefined) return inactive(event);
    event.reason = 'introspection.active';
    event.user_id = claims.sub;
    if (typeof claims.grant_id === 'string') event.grant_id = claims.grant_id;
    // RFC 9449 §6.2: a bound token's token_type is DPoP, and its cnf is reported (spread with the claims).
    return noStoreJson(200, {
      active: true,
      token_type: claims.cnf === undefined ? 'Bearer' : 'DPoP',
      ...claims,
    });
  }
  const record = await context.storage.refreshTokens.get(tenant.slug, sha256Base64url(token));
  if (
    !record ||
    record.consumedAt !== undefined ||
    record.revokedAt !== undefined ||
    record.expiresAt <= now ||
    (!resourceServer && record.clientId !== clientId)
  ) {
    return inactive(event);
  }
  event.reason = 'introspection.active';
  event.user_id = record.userId;
  event.grant_id = record.familyId;
  return noStoreJson(200, {
    active: true,
    token_type: 'refresh_token',
    iss: tenant.issuer,
    sub: record.userId,
    client_id: record.clientId,
    ...(record.scope === '' ? {} : { scope: record.scope }),
    iat: Math.floor(record.createdAt / 1000),
    exp: Math.floor(record.expiresAt / 1000),
  });
}

/** The inactive answer (RFC 7662 §2.2): the same for every reason, so nothing about the token leaks. */
function inactive(event: RequestEvent): HandlerResult {
  event.reason = 'introspection.inactive';
  return noStoreJson(200, INACTIVE);
}
