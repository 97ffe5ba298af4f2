import type { HandlerRequest, HandlerResult } from '@keyhold/core';
import { parseQuery, redirectResult, sha256Base64url } from '@keyhold/internal';
import type { ResolvedClient } from '../clients.js';
import { renewClientOnUse, resolveClient } from '../clients.js';
import { OAuthError } from '../errors.js';
import type { ServerContext } from '../options.js';
import { isS256Challenge } from '../pkce.js';
import { pooledRandomToken } from '../random-pool.js';
import { RateLimitedError } from '../rate-limits.js';
import { redirectUriMatches, withQuery } from '../redirect-uri.js';
import type { RequestEvent } from '../request-event.js';
import { parseResources } from '../resources.js';
import { errorPage } from '../responses.js';
import { formatScope, isWithin, requestedScopes } from '../scopes.js';
import type { ClientType } from '../storage.js';
import type { Tenant } from '../tenant.js';

const MAX_PARAMETER_LENGTH = 4096;

/** What an authorization request asks for once it has been validated. */
export interface ValidatedAuthorization {
  readonly clientId: string;
  readonly clientType: ClientType;
  readonly redirectUri: string;
  readonly codeChallenge: string;
  readonly scope: string;
  readonly resources: readonly string[];
  readonly state?: string;
  readonly nonce?: string;
  /** RFC 9449 §10: the thumbprint of the DPoP key that alone may redeem the code. */
  readonly dpopJkt?: string;
}

/** A 302 to the client with an error (RFC 6749 §4.1.2.1) and the issuer (RFC 9207). */
export function errorRedirect(
  tenant: Tenant,
  redirectUri: string,
  state: string | undefined,
  error: OAuthError,
  event: RequestEvent,
): HandlerResult {
  event.error_code = error.code;
  return redirectResult(
    withQuery(redirectUri, {
      error: error.code,
      error_description: error.message,
      state,
      iss: tenant.issuer,
    }),
  );
}

/** Issues an authorization code and answers with the 302 that carries it. */
export async function issueCode(
  context: ServerContext,
  tenant: Tenant,
  authorization: ValidatedAuthorization,
  userId: string,
): Promise<HandlerResult> {
  const code = pooledRandomToken();
  const now = context.clock.now();
  await context.storage.authorizationCodes.save(tenant.slug, {
    codeHash: sha256Base64url(code),
    clientId: authorization.clientId,
    clientType: authorization.clientType,
    userId,
    redirectUri: authorization.redirectUri,
    codeChallenge: authorization.codeChallenge,
    scope: authorization.scope,
    resources: authorization.resources,
    ...(authorization.nonce === undefined ? {} : { nonce: authorization.nonce }),
    ...(authorization.dpopJkt === undefined ? {} : { dpopJkt: authorization.dpopJkt }),
    authTime: now,
    expiresAt: now + context.authorizationCodeTtlMs,
    // Chosen now so that a replay of the code can revoke what its first redemption issued.
    familyId: pooledRandomToken(16),
    accessTokenJti: pooledRandomToken(16),
  });
  context.logger.info(
    { tenant: tenant.slug, clientId: authorization.clientId, userId, codePrefix: code.slice(0, 6) },
    'authorization code issued',
  );
  return redirectResult(
    withQuery(authorization.redirectUri, { code, state: authorization.state, iss: tenant.issuer }),
  );
}

/** Whether a remembered consent of the user covers every requested scope. */
export async function consentCovers(
  context: ServerContext,
  tenant: Tenant,
  userId: string,
  clientId: string,
  scopes: readonly string[],
): Promise<boolean> {
  const remembered = await context.storage.consents.list(tenant.slug, userId, clientId, context.clock.now());
  return remembered.some((record) => isWithin(scopes, record.scopes));
}

function clientHost(client: ResolvedClient, redirectUri: string): string {
  if (client.host) return client.host;
  try {
    return new URL(redirectUri).host || new URL(redirectUri).protocol;
  } catch {
    return 'unknown';
  }
}

/**
 * GET /authorize (RFC 6749 §4.1.1, OAuth 2.1, RFC 7636, RFC 8707, RFC 9207). Problems with the client or the
 * redirect URI are shown to the user; once the redirect URI is trusted, problems go back to it.
 */
export async function authorizeHandler(
  context: ServerContext,
  tenant: Tenant,
  request: HandlerRequest,
  event: RequestEvent,
): Promise<HandlerResult> {
  const parsed = parseQuery(request.query, { repeatable: ['resource'] });
  if (!parsed.ok) return shown(event, new OAuthError('invalid_request', parsed.message));
  const params = parsed.params;
  for (const [name, value] of Object.entries(params)) {
    if (value.length > MAX_PARAMETER_LENGTH) {
      return shown(event, new OAuthError('invalid_request', `parameter "${name}" is too long`));
    }
  }
  const clientId = params.client_id;
  if (clientId === undefined) return shown(event, new OAuthError('invalid_request', 'client_id is required'));
  // Before the client is resolved: a blocked metadata-document URL is never fetched. No redirect either way.
  if ((await context.storage.clientBlocks.get(tenant.slug, clientId)) !== undefined) {
    // The id is on the block list: the server's own record, not only the request's words.
    event.client_id = clientId;
    event.reason = 'client.blocked';
    return shown(
      event,
      new OAuthError('access_denied', `the application "${clientId}" is blocked on this server`),
      403,
    );
  }
  let client: ResolvedClient;
  try {
    client = await resolveClient(context, tenant, clientId, request);
  } catch (error) {
    // A spent CIMD fetch budget is answered by the endpoint boundary: 429 with Retry-After.
    if (error instanceof OAuthError && !(error instanceof RateLimitedError)) return shown(event, error);
    throw error;
  }
  event.client_type = client.clientType;
  event.client_id = client.clientId;
  const redirectUri = params.redirect_uri;
  if (redirectUri === undefined)
    return shown(event, new OAuthError('invalid_request', 'redirect_uri is required'));
  if (!client.redirectUris.some((registered) => redirectUriMatches(redirectUri, registered))) {
    return shown(event, new OAuthError('invalid_request', 'redirect_uri is not registered for this client'));
  }
  // From here on the redirect URI is trusted: errors go back to the client.
  const state = params.state;
  const fail = (error: OAuthError): HandlerResult => errorRedirect(tenant, redirectUri, state, error, event);
  // Request objects (OIDC Core §6, RFC 9101) are not supported. Refusing them, rather than ignoring them, keeps
  // a client from believing the signed parameters inside were honoured while the plain ones were used instead.
  if (params.request !== undefined) {
    return fail(new OAuthError('request_not_supported', 'the request parameter is not supported'));
  }
  if (params.request_uri !== undefined) {
    return fail(new OAuthError('request_uri_not_supported', 'the request_uri parameter is not supported'));
  }
  if (params.response_type === undefined) {
    return fail(new OAuthError('invalid_request', 'response_type is required'));
  }
  if (params.response_type !== 'code') {
    return fail(new OAuthError('unsupported_response_type', 'response_type must be "code"'));
  }
  if (params.response_mode !== undefined && params.response_mode !== 'query') {
    return fail(new OAuthError('invalid_request', 'response_mode must be "query"'));
  }
  if (params.code_challenge_method !== 'S256') {
    return fail(new OAuthError('invalid_request', 'PKCE with code_challenge_method "S256" is required'));
  }
  const challenge = params.code_challenge;
  if (challenge === undefined || !isS256Challenge(challenge)) {
    return fail(new OAuthError('invalid_request', 'code_challenge must be a base64url SHA-256 digest'));
  }
  if (!client.grantTypes.includes('authorization_code')) {
    return fail(new OAuthError('unauthorized_client', 'the client may not use the authorization_code grant'));
  }
  // A client that asks for no scope (and registered none) gets the tenant's resource scopes, which the
  // consent screen shows: what an MCP client authorizing for the tenant's MCP endpoint needs.
  const scopes = requestedScopes(params.scope, tenant.scopesSupported, client.scopes, tenant.resourceScopes);
  if ('error' in scopes) return fail(new OAuthError('invalid_scope', scopes.error));
  let resources: string[];
  try {
    resources = parseResources(tenant, params.resource);
  } catch (error) {
    if (error instanceof OAuthError) return fail(error);
    throw error;
  }
  // An SHA-256 thumbprint, base64url; ignored when DPoP is off (no proof could ever match it).
  const dpopJkt = context.dpop === undefined ? undefined : params.dpop_jkt;
  if (dpopJkt !== undefined && !/^[A-Za-z0-9_-]{43}$/.test(dpopJkt)) {
    return fail(new OAuthError('invalid_request', 'dpop_jkt must be a base64url SHA-256 JWK thumbprint'));
  }
  const prompts = new Set((params.prompt ?? '').split(' ').filter((p) => p !== ''));
  if (prompts.has('none') && prompts.size > 1) {
    return fail(new OAuthError('invalid_request', 'prompt=none cannot be combined with another prompt'));
  }
  const authorization: ValidatedAuthorization = {
    clientId: client.clientId,
    clientType: client.clientType,
    redirectUri,
    codeChallenge: challenge,
    scope: formatScope(scopes),
    resources,
    ...(state === undefined ? {} : { state }),
    ...(params.nonce === undefined ? {} : { nonce: params.nonce }),
    ...(dpopJkt === undefined ? {} : { dpopJkt }),
  };

  const userId = request.userId ?? (context.singleUserMode ? tenant.config.singleUserId : undefined);
  if (userId === undefined) {
    if (prompts.has('none')) return fail(new OAuthError('login_required', 'the user is not logged in'));
    event.reason = 'authorize.login_redirect';
    const returnTo = `${tenant.issuer}/authorize?${request.query}`;
    return redirectResult(withQuery(tenant.loginUrl, { return_to: returnTo }));
  }
  // A signed-in user authorizing the client counts as a use: a dynamic client's expiry moves forward.
  await renewClientOnUse(context, tenant, client);

  const firstParty = tenant.firstPartyClientIds.has(client.clientId);
  const needsScreen =
    prompts.has('consent') ||
    (!firstParty && !(await consentCovers(context, tenant, userId, client.clientId, scopes)));
  event.user_id = userId;
  if (!needsScreen) {
    event.reason = 'authorize.approved';
    return issueCode(context, tenant, authorization, userId);
  }
  if (prompts.has('none')) return fail(new OAuthError('consent_required', 'the user has not consented'));

  const id = pooledRandomToken();
  await context.storage.pendingAuthorizations.save(tenant.slug, {
    id,
    userId,
    clientName: client.name,
    clientHost: clientHost(client, redirectUri),
    ...authorization,
    expiresAt: context.clock.now() + context.pendingAuthorizationTtlMs,
  });
  event.reason = 'authorize.consent_shown';
  const pageUrl = context.consent.pageUrl?.({ tenant: tenant.slug, requestId: id, issuer: tenant.issuer });
  return redirectResult(pageUrl ?? `${tenant.issuer}/consent?req=${encodeURIComponent(id)}`);
}

function shown(event: RequestEvent, error: OAuthError, status = 400): HandlerResult {
  event.error_code = error.code;
  return errorPage(status, error);
}
