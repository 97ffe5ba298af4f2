import type { HandlerRequest } from '@keyhold/core';
import { sha256Base64url } from '@keyhold/core';
import { authenticateClient } from '../client-authentication.js';
import { OAuthError } from '../errors.js';
import type { ServerContext } from '../options.js';
import type { RequestEvent } from '../request-event.js';
import { audienceFor } from '../resources.js';
import { formatScope, isWithin, parseScope } from '../scopes.js';
import type { Tenant } from '../tenant.js';
import type { TokenResponseBody } from './issue-tokens.js';
import { issueTokens } from './issue-tokens.js';

/**
 * The refresh_token grant (RFC 6749 §6, OAuth 2.1 §4.3.1): every use rotates the token; a used token
 * presented again means it leaked, so the whole family is revoked. A narrower `scope` narrows the access
 * token only; the new refresh token keeps the original grant.
 */
export async function refreshTokenGrant(
  context: ServerContext,
  tenant: Tenant,
  request: HandlerRequest,
  params: Readonly<Record<string, string>>,
  event: RequestEvent,
): Promise<TokenResponseBody> {
  const presented = params.refresh_token;
  if (presented === undefined) throw new OAuthError('invalid_request', 'refresh_token is required');
  const requested = parseScope(params.scope);
  if (!requested) throw new OAuthError('invalid_scope', 'scope is malformed');
  const { client } = await authenticateClient(context, tenant, request, params, {
    allowPublic: true,
    renew: true,
  });
  event.client_type = client.clientType;
  if (!client.grantTypes.includes('refresh_token')) {
    throw new OAuthError('unauthorized_client', 'the client may not use the refresh_token grant');
  }
  const tokenHash = sha256Base64url(presented);
  if (params.scope !== undefined) {
    // A too-wide scope is refused before the token is spent, so the client can retry with it.
    const current = await context.storage.refreshTokens.get(tenant.slug, tokenHash);
    if (current && current.consumedAt === undefined && !isWithin(requested, current.scope.split(' '))) {
      throw new OAuthError('invalid_scope', 'the requested scope is wider than the original grant');
    }
  }
  const now = context.clock.now();
  const record = await context.storage.refreshTokens.consume(tenant.slug, tokenHash, now);
  if (!record) throw new OAuthError('invalid_grant', 'the refresh token is invalid');
  if (record.consumedAt !== undefined || record.clientId !== client.clientId) {
    await context.storage.refreshTokens.revokeFamily(tenant.slug, record.familyId, now);
    context.logger.warn(
      { tenant: tenant.slug, clientId: client.clientId, familyId: record.familyId },
      record.consumedAt !== undefined
        ? 'refresh token replayed: token family revoked'
        : 'refresh token presented by another client: token family revoked',
    );
    throw new OAuthError('invalid_grant', 'the refresh token was already used; its grant is revoked');
  }
  if (record.revokedAt !== undefined) throw new OAuthError('invalid_grant', 'the refresh token was revoked');
  if (record.expiresAt <= now) throw new OAuthError('invalid_grant', 'the refresh token has expired');
  const original = record.scope === '' ? [] : record.scope.split(' ');
  if (!isWithin(requested, original)) {
    throw new OAuthError('invalid_scope', 'the requested scope is wider than the original grant');
  }
  return issueTokens(context, tenant, {
    clientId: client.clientId,
    clientType: client.clientType,
    subject: record.userId,
    scope: record.scope,
    accessScope: params.scope === undefined ? record.scope : formatScope(requested),
    resources: record.resources,
    audience: audienceFor(tenant, record.resources),
    refresh: { familyId: record.familyId },
  });
}
