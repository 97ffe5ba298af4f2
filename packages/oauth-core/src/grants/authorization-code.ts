import type { HandlerRequest } from '@keyhold/core';
import { sha256Base64url } from '@keyhold/internal';
import { presentedClientId } from '../client-authentication.js';
import { type ResolvedClient, resolveClient } from '../clients.js';
import { requireProofOfBoundClient } from '../dpop/token-endpoint.js';
import { OAuthError } from '../errors.js';
import { openGrant, revokeGrant } from '../grant-records.js';
import type { ServerContext } from '../options.js';
import { verifyPkce } from '../pkce.js';
import { audienceFor, parseResources } from '../resources.js';
import { isWithin, scopeList } from '../scopes.js';
import type { Tenant } from '../tenant.js';
import type { Grant } from './grant.js';
import { authenticateGrantClient } from './grant-client.js';
import { issueTokens } from './issue-tokens.js';
import { userGrantOpening, userTokens } from './user-grant.js';

async function revokeIssuedFrom(
  context: ServerContext,
  tenant: Tenant,
  familyId: string | undefined,
  accessTokenJti: string | undefined,
  now: number,
): Promise<void> {
  // Records written before codes carried these ids cannot be traced to their tokens.
  if (familyId !== undefined) {
    await context.storage.refreshTokens.revokeFamily(tenant.slug, familyId, now);
    // The family id is the grant's id: its access tokens (and any exchanged from them) go too.
    await revokeGrant(context, tenant.slug, familyId, now, 'code_replay');
  }
  if (accessTokenJti !== undefined) {
    // The access token was issued at the first redemption, so it expires within one lifetime from now.
    await context.storage.revokedAccessTokens.revoke(
      tenant.slug,
      accessTokenJti,
      now + context.accessTokenTtlSeconds * 1000,
    );
  }
}

/**
 * The client a code redemption names (registered: a cached read; metadata document: the fetch that
 * authentication would make next), resolved before the code is taken. A name that resolves to no client
 * keeps its `invalid_client` refusal for authentication to throw after the code is taken, as before (the
 * code has leaked). An outage, or a document host over its fetch budget, is thrown while the code is still
 * unspent, so the client can retry.
 */
async function namedClient(
  context: ServerContext,
  tenant: Tenant,
  request: HandlerRequest,
  params: Readonly<Record<string, string>>,
): Promise<{ readonly clientId: string; readonly outcome: ResolvedClient | OAuthError } | undefined> {
  const clientId = presentedClientId(request, params);
  if (clientId === undefined) return undefined;
  try {
    return { clientId, outcome: await resolveClient(context, tenant, clientId, request) };
  } catch (error) {
    if (error instanceof OAuthError && error.code === 'invalid_client') return { clientId, outcome: error };
    throw error;
  }
}

/**
 * The authorization_code grant (RFC 6749 §4.1.3, RFC 7636 §4.6): the code is taken once, whatever happens
 * next; the verifier, redirect_uri and client must match what it was issued for. A code presented again
 * revokes the refresh-token family and the access token its first redemption issued (OAuth 2.1 §4.1.3):
 * both were chosen when the code was issued and recorded with it.
 */
export const authorizationCodeGrant: Grant = async (input) => {
  const { context, tenant, request, params, event, proof } = input;
  const { code, code_verifier: verifier, redirect_uri: redirectUri } = params;
  if (code === undefined) throw new OAuthError('invalid_request', 'code is required');
  // A client that must prove a key (RFC 9449 §5.2) and sent no proof keeps its code for the retry, so the
  // client the request names is resolved before the code is taken. Only without a proof: with one the rule
  // holds whoever the client is, and the usual order (code first) stands.
  const named = proof === undefined ? await namedClient(context, tenant, request, params) : undefined;
  if (named !== undefined && !(named.outcome instanceof OAuthError)) {
    requireProofOfBoundClient(named.outcome, proof, event);
  }
  // Taken before any other check: a presented code is gone, whatever happens next (even when expired, or
  // when the presenter cannot authenticate, in which case the code has leaked and must not stay usable).
  const now = context.clock.now();
  const record = await context.storage.authorizationCodes.consume(tenant.slug, sha256Base64url(code), now);
  if (record?.consumedAt !== undefined) {
    event.client_type = record.clientType;
    // The code was found: its client and user are the server's own records, not the request's words.
    event.client_id = record.clientId;
    event.user_id = record.userId;
    if (record.familyId !== undefined) event.grant_id = record.familyId;
    event.reason = 'grant.revoked.security';
    await revokeIssuedFrom(context, tenant, record.familyId, record.accessTokenJti, now);
    context.logger.warn(
      {
        event: 'replay_detected',
        reason: 'authorization_code',
        tenant: tenant.slug,
        clientId: record.clientId,
        familyId: record.familyId,
      },
      'authorization code replayed: the tokens issued from it are revoked',
    );
    throw new OAuthError('invalid_grant', 'the authorization code was already used; its tokens are revoked');
  }
  if (verifier === undefined) throw new OAuthError('invalid_request', 'code_verifier is required (PKCE)');
  if (redirectUri === undefined) throw new OAuthError('invalid_request', 'redirect_uri is required');
  const client = await authenticateGrantClient(input, {
    grantType: 'authorization_code',
    name: 'the authorization_code grant',
    allowPublic: true,
    requireBasic: true,
    ...(named === undefined ? {} : { resolved: named }),
  });
  const requestedResources = parseResources(tenant, params.resource);
  if (!record) throw new OAuthError('invalid_grant', 'the authorization code is invalid or was already used');
  if (record.expiresAt <= now) throw new OAuthError('invalid_grant', 'the authorization code has expired');
  if (record.clientId !== client.clientId) {
    throw new OAuthError('invalid_grant', 'the authorization code was issued to another client');
  }
  if (record.redirectUri !== redirectUri) {
    throw new OAuthError('invalid_grant', 'redirect_uri does not match the authorization request');
  }
  if (!verifyPkce(verifier, record.codeChallenge)) {
    throw new OAuthError('invalid_grant', 'code_verifier does not match the code_challenge');
  }
  if (record.dpopJkt !== undefined && proof?.jkt !== record.dpopJkt) {
    // RFC 9449 §10: the code was requested for one key (dpop_jkt); only a proof of that key redeems it.
    throw new OAuthError(
      'invalid_grant',
      'the DPoP proof key does not match the dpop_jkt of the authorization request',
    );
  }
  const granted = record.resources.length > 0 ? record.resources : tenant.resources;
  if (!isWithin(requestedResources, granted)) {
    throw new OAuthError('invalid_target', 'resource was not part of the authorization');
  }
  const resources = requestedResources.length > 0 ? requestedResources : record.resources;
  const scopes = scopeList(record.scope);
  const offline = client.grantTypes.includes('refresh_token');
  const grantId = await openGrant(context, tenant, {
    ...(record.familyId === undefined ? {} : { grantId: record.familyId }),
    ...userGrantOpening(client, record, offline),
  });
  event.user_id = record.userId;
  event.grant_id = grantId;
  return issueTokens(context, tenant, {
    ...userTokens(client, record, grantId),
    audience: audienceFor(tenant, resources),
    // The family is the grant: revoking the grant revokes the family by the same id.
    refresh: offline ? { familyId: grantId } : false,
    ...(record.accessTokenJti === undefined ? {} : { accessTokenJti: record.accessTokenJti }),
    ...(proof === undefined ? {} : { jkt: proof.jkt }),
    ...(proof !== undefined && client.authMethod === 'none' ? { refreshJkt: proof.jkt } : {}),
    ...(scopes.includes('openid')
      ? {
          idToken: {
            authTimeMs: record.authTime,
            ...(record.nonce === undefined ? {} : { nonce: record.nonce }),
          },
        }
      : {}),
  });
};
