import type { HandlerRequest, HandlerResult } from '@keyhold/core';
import { mediaType, NO_STORE_HEADERS, parseForm, sha256Base64url } from '@keyhold/internal';
import { authenticateClient, vouchedFor } from '../client-authentication.js';
import { OAuthError } from '../errors.js';
import type { ServerContext } from '../options.js';
import type { RequestEvent } from '../request-event.js';
import type { Tenant } from '../tenant.js';
import { looksLikeJwt, verifyAccessTokenJwt } from '../tokens.js';

/** Reads the form of /revoke and /introspect and authenticates the client. */
export async function readTokenForm(
  context: ServerContext,
  tenant: Tenant,
  request: HandlerRequest,
  event: RequestEvent,
): Promise<{ token: string; clientId: string; confidential: boolean }> {
  if (mediaType(request.headers['content-type']) !== 'application/x-www-form-urlencoded') {
    throw new OAuthError('invalid_request', 'the body must be application/x-www-form-urlencoded');
  }
  const parsed = parseForm(request.body);
  if (!parsed.ok) throw new OAuthError('invalid_request', parsed.message);
  const { client, method } = await authenticateClient(context, tenant, request, parsed.params, {
    allowPublic: true,
  });
  event.client_type = client.clientType;
  event.client_authenticated = vouchedFor(client, method);
  event.client_id = client.clientId;
  const token = parsed.params.token;
  if (token === undefined) throw new OAuthError('invalid_request', 'token is required');
  if (token.length > 8192) throw new OAuthError('invalid_request', 'token is too long');
  return { token, clientId: client.clientId, confidential: method !== 'none' };
}

/**
 * POST /revoke (RFC 7009). Answers 200 for any well-formed request, including unknown tokens and tokens of
 * other clients (which are left alone), so it reveals nothing. A refresh token revokes its whole family; an
 * access token is revoked by its `jti` until it expires.
 */
export async function revokeHandler(
  context: ServerContext,
  tenant: Tenant,
  request: HandlerRequest,
  event: RequestEvent,
): Promise<HandlerResult> {
  const { token, clientId } = await readTokenForm(context, tenant, request, event);
  const now = context.clock.now();
  if (looksLikeJwt(token)) {
    const verified = await verifyAccessTokenJwt(tenant.keys, token, tenant.issuer, now);
    if (verified.ok && verified.claims.client_id === clientId) {
      await context.storage.revokedAccessTokens.revoke(
        tenant.slug,
        verified.claims.jti,
        verified.claims.exp * 1000,
      );
      context.logger.info(
        { tenant: tenant.slug, clientId, jti: verified.claims.jti },
        'access token revoked',
      );
    }
  } else {
    const record = await context.storage.refreshTokens.get(tenant.slug, sha256Base64url(token));
    if (record && record.clientId === clientId) {
      await context.storage.refreshTokens.revokeFamily(tenant.slug, record.familyId, now);
      context.logger.info(
        { tenant: tenant.slug, clientId, familyId: record.familyId },
        'refresh token family revoked',
      );
    }
  }
  return { status: 200, headers: { ...NO_STORE_HEADERS } };
}
