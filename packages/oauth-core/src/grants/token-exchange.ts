import { OAuthError } from '../errors.js';
import { refuseIfBlocked, tokenRefusal } from '../grant-records.js';
import type { ServerContext } from '../options.js';
import { formatScope, isWithin, parseScope, scopeList } from '../scopes.js';
import type { Tenant } from '../tenant.js';
import type { AccessTokenClaims, ActorClaim } from '../tokens.js';
import { isActor, MAX_ACTOR_NESTING, verifyAccessTokenJwt } from '../tokens.js';
import type { Grant } from './grant.js';
import { authenticateGrantClient } from './grant-client.js';
import { issueTokens } from './issue-tokens.js';

/**
 * The RFC 8693 grant type.
 *
 * @example
 * ```ts
 * formEncode({ grant_type: TOKEN_EXCHANGE_GRANT, subject_token, subject_token_type: ACCESS_TOKEN_TYPE, audience: 'svc' });
 * ```
 */
export const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
/**
 * The one token type this server exchanges and issues (RFC 8693 §3).
 *
 * @example
 * ```ts
 * if (body.issued_token_type === ACCESS_TOKEN_TYPE) useAsBearer(body.access_token);
 * ```
 */
export const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';

async function verifyPresented(
  context: ServerContext,
  tenant: Tenant,
  token: string,
  name: string,
): Promise<AccessTokenClaims> {
  const verified = await verifyAccessTokenJwt(tenant.keys, token, tenant.issuer, context.clock.now());
  if (!verified.ok) throw new OAuthError('invalid_request', `${name}: ${verified.description}`);
  if ((await tokenRefusal(context, tenant, verified.claims, context.clock.now())) !== undefined) {
    throw new OAuthError('invalid_request', `${name}: the token was revoked`);
  }
  return verified.claims;
}

/**
 * Whether the exchanging client may present `actor` as its actor token: the token was issued to it, or it
 * carries an RFC 8693 §4.4 `may_act` claim naming it (by `client_id`, or by `sub` as this server names a
 * client acting for itself, `client:<client_id>`).
 */
function mayAct(actor: AccessTokenClaims, clientId: string): boolean {
  if (actor.client_id === clientId) return true;
  const allowed = (actor as { readonly may_act?: unknown }).may_act;
  if (typeof allowed !== 'object' || allowed === null) return false;
  const named = allowed as { readonly client_id?: unknown; readonly sub?: unknown };
  return named.client_id === clientId || named.sub === `client:${clientId}`;
}

function parseAudience(params: Readonly<Record<string, string>>): string[] {
  const values: string[] = [];
  for (const name of ['resource', 'audience'] as const) {
    for (const value of (params[name] ?? '').split(' ')) {
      if (value === '') continue;
      if (name === 'resource') {
        let url: URL;
        try {
          url = new URL(value);
        } catch {
          throw new OAuthError('invalid_target', 'resource must be an absolute URI');
        }
        if (url.hash !== '' || value.includes('#')) {
          throw new OAuthError('invalid_target', 'resource must not contain a fragment');
        }
      }
      if (value.length > 2048) throw new OAuthError('invalid_target', 'audience is too long');
      values.push(value);
    }
  }
  return [...new Set(values)];
}

/**
 * RFC 8693 token exchange: a confidential client trades a user's access token (and optionally its own
 * actor token) for a token addressed to a downstream service. The new token keeps the subject, may only
 * narrow the scope, never outlives the subject token, and records the acting party in `act`; the subject
 * token's own `act` is nested inside, so the chain of delegations stays visible (up to the depth the
 * verifier accepts). Only clients the host gave `tokenExchangeAudiences` may exchange, and only for those
 * exact audiences. An actor token must have been issued to the exchanging client, or name it in `may_act`.
 */
export const tokenExchangeGrant: Grant = async (input) => {
  const { context, tenant, params, event, proof } = input;
  const client = await authenticateGrantClient(input, {
    grantType: TOKEN_EXCHANGE_GRANT,
    name: 'token exchange',
    allowPublic: false,
  });
  await refuseIfBlocked(context, tenant, client.clientId);
  // Which downstream services a client may reach is the host's decision, recorded on the client.
  const permitted = client.tokenExchangeAudiences;
  if (permitted === undefined || permitted.length === 0) {
    throw new OAuthError(
      'unauthorized_client',
      'the client has no token exchange audiences; the host must provision it with tokenExchangeAudiences',
    );
  }
  const { subject_token: subjectToken, subject_token_type: subjectType } = params;
  if (subjectToken === undefined) throw new OAuthError('invalid_request', 'subject_token is required');
  if (subjectType === undefined) throw new OAuthError('invalid_request', 'subject_token_type is required');
  if (subjectType !== ACCESS_TOKEN_TYPE) {
    throw new OAuthError('unsupported_token_type', `subject_token_type must be ${ACCESS_TOKEN_TYPE}`);
  }
  const { actor_token: actorToken, actor_token_type: actorType } = params;
  if (actorToken !== undefined && actorType === undefined) {
    throw new OAuthError('invalid_request', 'actor_token_type is required with actor_token');
  }
  if (actorToken === undefined && actorType !== undefined) {
    throw new OAuthError('invalid_request', 'actor_token_type must not be sent without actor_token');
  }
  if (actorType !== undefined && actorType !== ACCESS_TOKEN_TYPE) {
    throw new OAuthError('unsupported_token_type', `actor_token_type must be ${ACCESS_TOKEN_TYPE}`);
  }
  if (params.requested_token_type !== undefined && params.requested_token_type !== ACCESS_TOKEN_TYPE) {
    throw new OAuthError('invalid_request', `requested_token_type must be ${ACCESS_TOKEN_TYPE}`);
  }
  const audience = parseAudience(params);
  if (audience.length === 0) {
    throw new OAuthError('invalid_request', 'audience or resource naming the downstream service is required');
  }
  // An exchanged token is for a downstream service. Naming this tenant's own resources would turn any user
  // token (even one issued for another service) into a token the tenant's MCP endpoint accepts.
  if (audience.some((target) => target === tenant.resource || tenant.resources.includes(target))) {
    throw new OAuthError('invalid_target', "token exchange cannot target this server's own resources");
  }
  const refused = audience.filter((target) => !permitted.includes(target));
  if (refused.length > 0) {
    throw new OAuthError('invalid_target', 'the client may not exchange tokens for this audience');
  }
  const requested = parseScope(params.scope);
  if (!requested) throw new OAuthError('invalid_scope', 'scope is malformed');
  const subject = await verifyPresented(context, tenant, subjectToken, 'subject_token');
  const actor =
    actorToken === undefined ? undefined : await verifyPresented(context, tenant, actorToken, 'actor_token');
  if (actor && !mayAct(actor, client.clientId)) {
    // Otherwise any token the client holds (one a user gave another client, say) would name its user as
    // the actor of a delegation that user never agreed to.
    throw new OAuthError(
      'invalid_request',
      'actor_token: it was not issued to this client and its may_act claim does not name this client (RFC 8693 §4.4)',
    );
  }
  const original = scopeList(subject.scope);
  if (!isWithin(requested, original)) {
    throw new OAuthError('invalid_scope', 'the requested scope is wider than the subject token');
  }
  const scope = params.scope === undefined ? formatScope(original) : formatScope(requested);
  const act: ActorClaim = {
    sub: actor ? actor.sub : `client:${client.clientId}`,
    client_id: client.clientId,
    ...(subject.act ? { act: subject.act } : {}),
  };
  // Refused now rather than issued and refused by every verifier: the chain would be too deep to accept.
  if (!isActor(act)) {
    throw new OAuthError(
      'invalid_request',
      `subject_token: its delegation chain is already ${MAX_ACTOR_NESTING + 1} actors deep, the most a token may carry`,
    );
  }
  event.user_id = subject.sub;
  if (subject.grant_id !== undefined) event.grant_id = subject.grant_id;
  const body = await issueTokens(context, tenant, {
    clientId: client.clientId,
    clientType: client.clientType,
    subject: subject.sub,
    scope,
    resources: [],
    audience,
    refresh: false,
    act,
    notAfterSeconds: subject.exp,
    // The exchanged token lives under the subject token's grant: revoking that grant refuses it too.
    ...(subject.grant_id === undefined ? {} : { grantId: subject.grant_id }),
    ...(proof === undefined ? {} : { jkt: proof.jkt }),
  });
  return { ...body, issued_token_type: ACCESS_TOKEN_TYPE };
};
