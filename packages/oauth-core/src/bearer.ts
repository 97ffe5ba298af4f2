import type { HandlerResult } from '@keyhold/core';
import { jsonResult } from '@keyhold/internal';
import { tokenRefusal } from './grant-records.js';
import type { ServerContext } from './options.js';
import { isWithin, scopeList } from './scopes.js';
import type { Tenant } from './tenant.js';
import type { AccessTokenClaims } from './tokens.js';
import { audiences, verifyAccessTokenJwt } from './tokens.js';

/**
 * Options of `verifyAccessToken`.
 *
 * @example
 * ```ts
 * await server.verifyAccessToken('demo', header, { requiredScopes: ['mcp'], resource: 'https://auth.example/tenant/demo/mcp' });
 * ```
 */
export interface VerifyAccessTokenOptions {
  /**
   * Scopes this operation needs. For the tenant's own protected resource they are added to the tenant's
   * `resourceScopes` (default `['mcp:tools']`), which are always required there; for another `resource`
   * they are the whole requirement (default none). A token missing any gets 403 `insufficient_scope`
   * whose `scope` lists every required scope. `offline_access` is never required (it governs refresh
   * tokens, not resource access).
   */
  readonly requiredScopes?: readonly string[];
  /** The audience the token must carry. Default: the tenant's protected resource (`{issuer}/mcp`). */
  readonly resource?: string;
  /**
   * Whether tokens a client obtained for itself (client_credentials, subject `client:<client_id>`) are
   * accepted. Default `false`: they get 403 `invalid_token` saying machine clients are not accepted (no
   * `scope` hint, so clients stop instead of stepping up to a token just like the one they hold).
   */
  readonly allowMachineSubjects?: boolean;
}

/**
 * The subject prefix of tokens a client obtained for itself (client_credentials): `client:<client_id>`.
 * User ids must not start with it.
 *
 * @example
 * ```ts
 * const isMachine = claims.sub.startsWith(MACHINE_SUBJECT_PREFIX);
 * ```
 */
export const MACHINE_SUBJECT_PREFIX = 'client:';

/** Why a machine token is refused by a resource that acts for users; clients show it to people. */
const MACHINE_REFUSAL =
  'machine clients are not accepted: this resource acts for users, and a token a client obtained for itself (client_credentials) is not accepted here';

const warnedTenants = new WeakSet<object>();

/**
 * The outcome of verifying a bearer token: the claims, or a ready 401/403 with its `WWW-Authenticate`
 * challenge (RFC 6750 §3, RFC 9728 §5.1) to send as it is, or a ready 503 with `Retry-After` when storage
 * was unavailable while the token was checked (the token is not judged; the client keeps it).
 *
 * @example
 * ```ts
 * const check = await server.verifyAccessToken('demo', request.headers.authorization);
 * if (!check.ok) return check.result;
 * check.claims.sub;
 * ```
 */
export type AccessTokenCheck =
  | { readonly ok: true; readonly claims: AccessTokenClaims }
  | { readonly ok: false; readonly result: HandlerResult };

// A quoted-string (RFC 9110 §5.6.4) of printable ASCII: CR/LF would split the header, and other control or
// non-latin1 characters (an unknown tenant slug decoded from `%00`, say) make Node refuse the whole response.
function quoted(value: string): string {
  return `"${value.replace(/[\\"]/g, '\\$&').replace(/[^\t\x20-\x7e]/g, '?')}"`;
}

/** What a Bearer challenge says: RFC 6750 §3 with the RFC 9728 `resource_metadata` pointer. */
export interface BearerChallengeOptions {
  readonly realm: string;
  readonly resourceMetadataUrl?: string | undefined;
  /** 401 unless given: a 403 refuses a token the client should not simply replace with a fresh one. */
  readonly status?: 401 | 403;
  /**
   * The RFC 6750 §3.1 error code. Omitted when the request carried no bearer credentials at all: the
   * challenge then says only how to authenticate (RFC 6750 §3.1: no error code without credentials).
   */
  readonly error?: 'invalid_token' | 'insufficient_scope';
  readonly description?: string;
  /** The scopes a fresh token should ask for; never sent on a refusal a new scope cannot cure. */
  readonly scope?: string | undefined;
}

/** A Bearer challenge response (RFC 6750 §3, RFC 9728 §5.1). */
export function bearerChallenge(options: BearerChallengeOptions): HandlerResult {
  const { realm, resourceMetadataUrl, error, description, scope } = options;
  const parts = [`realm=${quoted(realm)}`];
  if (resourceMetadataUrl) parts.push(`resource_metadata=${quoted(resourceMetadataUrl)}`);
  if (error !== undefined) {
    parts.push(`error=${quoted(error)}`);
    if (description !== undefined) parts.push(`error_description=${quoted(description)}`);
  }
  if (scope !== undefined && scope !== '') parts.push(`scope=${quoted(scope)}`);
  const body =
    error === undefined
      ? { error_description: description ?? 'a bearer token is required' }
      : { error, ...(description === undefined ? {} : { error_description: description }) };
  return jsonResult(options.status ?? 401, body, {
    'www-authenticate': `Bearer ${parts.join(', ')}`,
    'cache-control': 'no-store',
  });
}

/**
 * Whether a request carries Bearer credentials at all; without them (nothing, or another scheme such as DPoP)
 * RFC 6750 §3.1 wants a challenge with no error code.
 */
export function presentsBearer(authorization: string | undefined): authorization is string {
  return authorization !== undefined && /^Bearer(?: |$)/i.test(authorization.trimStart());
}

/**
 * The scopes an operation needs: the tenant's resource scopes for its own resource (always, for a
 * `protectedResource`), plus the extra ones; for another `resource` only the extra ones.
 */
export function requiredScopesFor(tenant: Tenant, options: VerifyAccessTokenOptions): string[] {
  const resource = options.resource ?? tenant.resource;
  const scopes = [
    ...(resource === tenant.resource ? tenant.resourceScopes : []),
    ...(options.requiredScopes ?? []),
  ];
  return [...new Set(scopes)].filter((scope) => scope !== 'offline_access');
}

/**
 * What one protected resource demands of a bearer token: the audience, the scopes (exact matches of opaque
 * scope strings, RFC 6749 §3.3) and whether machine subjects are served, plus where its challenges point.
 */
export interface BearerPolicy {
  readonly resource: string;
  readonly resourceMetadataUrl: string;
  readonly requiredScopes: readonly string[];
  readonly allowMachineSubjects: boolean;
}

/** A token that passed signature, issuer, expiry, audience and revocation, or why it did not. */
export type TokenValidity =
  | { readonly ok: true; readonly claims: AccessTokenClaims }
  | {
      readonly ok: false;
      readonly description: string;
      /** The catalogue reason (`token.rejected.*`), and the claims when the token itself verified. */
      readonly reason?: string;
      readonly claims?: AccessTokenClaims;
    };

/** Hears why the bearer policy refused a presented token: a catalogue reason, and its verified claims. */
export type BearerRefusalReport = (reason: string, claims?: AccessTokenClaims) => void;

/**
 * The token half of the bearer policy: signature, issuer, expiry, audience and revocation (of the token's
 * `jti` and of its grant, see grant-records.ts). The SDK-shaped
 * token verifier stops here (the SDK applies scopes itself); {@link checkBearer} goes on with subject and scope.
 */
export async function validateAccessToken(
  context: ServerContext,
  tenant: Tenant,
  token: string,
  resource: string,
): Promise<TokenValidity> {
  const now = context.clock.now();
  const verified = await verifyAccessTokenJwt(tenant.keys, token, tenant.issuer, now);
  if (!verified.ok) {
    const expired = verified.description === 'the access token has expired';
    return { ...verified, reason: expired ? 'token.rejected.expired' : 'token.rejected.invalid' };
  }
  const claims = verified.claims;
  if (!audiences(claims).includes(resource)) {
    return {
      ok: false,
      description: 'the access token is not for this resource',
      reason: 'token.rejected.wrong_resource',
      claims,
    };
  }
  const refusal = await tokenRefusal(context, tenant, claims, now);
  if (refusal !== undefined) {
    const ofGrant = refusal.includes('its grant');
    const reason = ofGrant ? 'token.rejected.grant_revoked' : 'token.rejected.revoked';
    return { ok: false, description: refusal, reason, claims };
  }
  return { ok: true, claims };
}

/** The policy `verifyAccessToken` applies for its options: the tenant's own resource unless told otherwise. */
export function policyFor(tenant: Tenant, options: VerifyAccessTokenOptions): BearerPolicy {
  return {
    resource: options.resource ?? tenant.resource,
    resourceMetadataUrl: tenant.resourceMetadataUrl,
    requiredScopes: requiredScopesFor(tenant, options),
    allowMachineSubjects: options.allowMachineSubjects === true,
  };
}

/**
 * THE bearer policy of every protected resource (`verifyAccessToken`, `protectedResource().verify` and so
 * the MCP endpoint): the token (see {@link validateAccessToken}), then the machine-subject rule, then the
 * scopes. One challenge format: realm = tenant slug, `resource_metadata`, `scope` naming every required scope.
 */
export async function checkBearer(
  context: ServerContext,
  tenant: Tenant,
  authorization: string | undefined,
  policy: BearerPolicy,
  report?: BearerRefusalReport,
): Promise<AccessTokenCheck> {
  const required = policy.requiredScopes;
  // MCP asks servers to name the needed scopes in the 401 too, so a client requests them the first time.
  const scopeHint = required.length > 0 ? required.join(' ') : undefined;
  if (
    tenant.scopesSupported &&
    !isWithin(required, tenant.scopesSupported) &&
    !warnedTenants.has(tenant.config)
  ) {
    warnedTenants.add(tenant.config);
    context.logger.warn(
      { tenant: tenant.slug, requiredScopes: required, scopesSupported: tenant.scopesSupported },
      'required resource scopes are not all in scopesSupported: no token can be accepted',
    );
  }
  const challengeBase = { realm: tenant.slug, resourceMetadataUrl: policy.resourceMetadataUrl };
  const fail = (description: string): AccessTokenCheck => ({
    ok: false,
    result: bearerChallenge({ ...challengeBase, error: 'invalid_token', description, scope: scopeHint }),
  });
  // No Bearer credentials at all (nothing, or another scheme such as DPoP): RFC 6750 §3.1 wants a
  // challenge without an error code; it still names the scopes so the first token asks for them.
  if (!presentsBearer(authorization)) {
    return { ok: false, result: bearerChallenge({ ...challengeBase, scope: scopeHint }) };
  }
  const match = /^Bearer +([A-Za-z0-9\-._~+/]+=*)\s*$/i.exec(authorization);
  if (!match?.[1]) {
    report?.('token.rejected.invalid');
    return fail('the Authorization header must be "Bearer <token>"');
  }
  const valid = await validateAccessToken(context, tenant, match[1], policy.resource);
  if (!valid.ok) {
    report?.(valid.reason ?? 'token.rejected.invalid', valid.claims);
    return fail(valid.description);
  }
  const claims = valid.claims;
  if (claims.sub.startsWith(MACHINE_SUBJECT_PREFIX) && !policy.allowMachineSubjects) {
    report?.('token.rejected.invalid', claims);
    // Not insufficient_scope: the token holds the scopes, and MCP clients answer that code with a step-up
    // (a second token just like the first, the same 403). A 403 without a scope hint is final for them.
    return {
      ok: false,
      result: bearerChallenge({
        ...challengeBase,
        status: 403,
        error: 'invalid_token',
        description: MACHINE_REFUSAL,
      }),
    };
  }
  if (!isWithin(required, scopeList(claims.scope))) {
    report?.('token.rejected.insufficient_scope', claims);
    return {
      ok: false,
      result: bearerChallenge({
        ...challengeBase,
        status: 403,
        error: 'insufficient_scope',
        description: 'the access token lacks a required scope',
        scope: scopeHint,
      }),
    };
  }
  return { ok: true, claims };
}
