import type { HandlerResult } from '@keyhold/core';
import { jsonResult } from '@keyhold/internal';
import { checkDpopProof } from './dpop/check.js';
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
   * Whether machine tokens are accepted: those a client obtained for itself (client_credentials, subject
   * `client:<client_id>`) and those a workload obtained with its own JWT (jwt-bearer workload identity,
   * subject `workload:<sub>`). Default `false`: they get 403 `invalid_token` saying machine clients are not
   * accepted (no `scope` hint, so clients stop instead of stepping up to a token just like the one they hold).
   */
  readonly allowMachineSubjects?: boolean;
  /**
   * The request's method and `DPoP` header, for a token presented as `Authorization: DPoP` (RFC 9449 §7):
   * the proof is checked against the method and the resource URL. Without them a DPoP-scheme request is
   * refused (`invalid_dpop_proof`).
   */
  readonly request?: DpopRequest;
}

/**
 * What a resource passes along for DPoP: the request's method and its `DPoP` header (as received; two
 * headers joined with a comma are refused).
 *
 * @example
 * ```ts
 * await resource.verify(request.headers.get('authorization') ?? undefined, {
 *   method: request.method,
 *   dpop: request.headers.get('dpop') ?? undefined,
 * });
 * ```
 */
export interface DpopRequest {
  readonly method: string;
  readonly dpop?: string | undefined;
}

/**
 * The subject prefix of tokens a client obtained for itself (client_credentials): `client:<client_id>`.
 * User ids must not start with it (nor with {@link WORKLOAD_SUBJECT_PREFIX}).
 *
 * @example
 * ```ts
 * const forItself = claims.sub.startsWith(MACHINE_SUBJECT_PREFIX);
 * ```
 */
export const MACHINE_SUBJECT_PREFIX = 'client:';

/**
 * The subject prefix of tokens a workload obtained with its own JWT (the jwt-bearer grant's workload
 * identity pipeline): `workload:<sub>`, or `workload:<principal>` when its trust policy names one.
 *
 * @example
 * ```ts
 * const workload = claims.sub.startsWith(WORKLOAD_SUBJECT_PREFIX);
 * ```
 */
export const WORKLOAD_SUBJECT_PREFIX = 'workload:';

/**
 * Whether a token's subject is a machine rather than a user: a client acting for itself or a workload. The
 * one rule every resource, userinfo and the token verifier apply, so the two kinds are never told apart
 * where it matters whether a person is behind the token.
 *
 * @example
 * ```ts
 * if (isMachineSubject(claims.sub)) return refuse('this resource acts for users');
 * ```
 */
export function isMachineSubject(sub: string): boolean {
  return sub.startsWith(MACHINE_SUBJECT_PREFIX) || sub.startsWith(WORKLOAD_SUBJECT_PREFIX);
}

/** Why a machine token is refused by a resource that acts for users; clients show it to people. */
const MACHINE_REFUSAL =
  'machine clients are not accepted: this resource acts for users, and a token a client or workload obtained for itself (client_credentials, workload identity) is not accepted here';

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
   * The RFC 6750 §3.1 (or RFC 9449 §7.1) error code. Omitted when the request carried no credentials at
   * all: the challenge then says only how to authenticate (RFC 6750 §3.1: no error code without credentials).
   */
  readonly error?: 'invalid_token' | 'insufficient_scope' | 'invalid_dpop_proof' | 'use_dpop_nonce';
  readonly description?: string;
  /** The scopes a fresh token should ask for; never sent on a refusal a new scope cannot cure. */
  readonly scope?: string | undefined;
  /** DPoP is accepted too: a `DPoP` challenge with these `algs` follows the Bearer one (RFC 9449 §7.1). */
  readonly dpopAlgorithms?: readonly string[] | undefined;
  /** The scheme the request used: the error goes on its challenge alone (RFC 9449 §7.2). Default Bearer. */
  readonly scheme?: 'Bearer' | 'DPoP';
  /** A nonce to retry with (`DPoP-Nonce`, RFC 9449 §9). */
  readonly dpopNonce?: string;
}

/**
 * A Bearer challenge response (RFC 6750 §3, RFC 9728 §5.1), followed by a DPoP challenge when DPoP is
 * accepted (RFC 9449 §7.1). Each parameter appears once per challenge (RFC 9110 §11.2); the error sits on
 * the challenge of the scheme the request used, and both challenges keep `resource_metadata`, since some
 * clients read it from the Bearer challenge only.
 */
export function bearerChallenge(options: BearerChallengeOptions): HandlerResult {
  const { realm, resourceMetadataUrl, error, description, scope, dpopAlgorithms } = options;
  const scheme = dpopAlgorithms === undefined ? 'Bearer' : (options.scheme ?? 'Bearer');
  const params = (forScheme: 'Bearer' | 'DPoP'): string => {
    const parts = [`realm=${quoted(realm)}`];
    if (resourceMetadataUrl) parts.push(`resource_metadata=${quoted(resourceMetadataUrl)}`);
    if (forScheme === 'DPoP') parts.push(`algs=${quoted((dpopAlgorithms ?? []).join(' '))}`);
    if (error !== undefined && forScheme === scheme) {
      parts.push(`error=${quoted(error)}`);
      if (description !== undefined) parts.push(`error_description=${quoted(description)}`);
    }
    if (scope !== undefined && scope !== '') parts.push(`scope=${quoted(scope)}`);
    return `${forScheme} ${parts.join(', ')}`;
  };
  const body =
    error === undefined
      ? { error_description: description ?? 'a bearer token is required' }
      : { error, ...(description === undefined ? {} : { error_description: description }) };
  const challenge =
    dpopAlgorithms === undefined ? params('Bearer') : `${params('Bearer')}, ${params('DPoP')}`;
  return jsonResult(options.status ?? 401, body, {
    'www-authenticate': challenge,
    'cache-control': 'no-store',
    ...(options.dpopNonce === undefined ? {} : { 'dpop-nonce': options.dpopNonce }),
  });
}

/** The credentials of an `Authorization` header: a Bearer or DPoP token, none, or a malformed one. */
export type PresentedToken =
  | { readonly kind: 'token'; readonly scheme: 'Bearer' | 'DPoP'; readonly token: string }
  | { readonly kind: 'malformed'; readonly scheme: 'Bearer' | 'DPoP' }
  | { readonly kind: 'none' };

/** Reads `Bearer <token68>` (RFC 6750 §2.1) or `DPoP <token68>` (RFC 9449 §7.1); any other scheme is none. */
export function presentedToken(authorization: string | undefined): PresentedToken {
  const scheme = /^\s*(Bearer|DPoP)(?: |$)/i.exec(authorization ?? '')?.[1];
  if (scheme === undefined) return { kind: 'none' };
  const name = scheme.toLowerCase() === 'dpop' ? 'DPoP' : 'Bearer';
  const token = /^\s*(?:Bearer|DPoP) +([A-Za-z0-9\-._~+/]+=*)\s*$/i.exec(authorization ?? '')?.[1];
  return token === undefined ? { kind: 'malformed', scheme: name } : { kind: 'token', scheme: name, token };
}

/**
 * Whether a request carries Bearer credentials at all; without them (nothing, or another scheme such as DPoP)
 * RFC 6750 §3.1 wants a challenge with no error code.
 */
export function presentsBearer(authorization: string | undefined): authorization is string {
  return authorization !== undefined && /^Bearer(?: |$)/i.test(authorization.trimStart());
}

/** Whether a request carries Bearer or DPoP credentials: a refusal of them is a security event worth a log line. */
export function presentsCredentials(authorization: string | undefined): authorization is string {
  return presentedToken(authorization).kind !== 'none';
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
  /** Only DPoP-bound tokens are served (RFC 9728 `dpop_bound_access_tokens_required`). */
  readonly dpopRequired?: boolean;
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

/** The nonce label of a resource: distinct from the authorization server's and from every other resource's. */
export function resourceNonceLabel(resource: string): string {
  return `rs:${resource}`;
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
  request?: DpopRequest,
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
  const dpop = context.dpop;
  const presented = presentedToken(authorization);
  // A DPoP token at a server without DPoP is no credential it understands.
  const scheme =
    presented.kind === 'none' || (presented.scheme === 'DPoP' && dpop === undefined)
      ? undefined
      : presented.scheme;
  const challengeBase = {
    realm: tenant.slug,
    resourceMetadataUrl: policy.resourceMetadataUrl,
    ...(dpop === undefined ? {} : { dpopAlgorithms: dpop.algorithms }),
    ...(scheme === undefined ? {} : { scheme }),
  };
  const fail = (description: string): AccessTokenCheck => ({
    ok: false,
    result: bearerChallenge({ ...challengeBase, error: 'invalid_token', description, scope: scopeHint }),
  });
  // No credentials at all (nothing, or a scheme this server does not take): RFC 6750 §3.1 wants a
  // challenge without an error code; it still names the scopes so the first token asks for them.
  if (scheme === undefined || presented.kind === 'none') {
    return { ok: false, result: bearerChallenge({ ...challengeBase, scope: scopeHint }) };
  }
  if (presented.kind === 'malformed') {
    report?.('token.rejected.invalid');
    return fail(`the Authorization header must be "${scheme} <token>"`);
  }
  if (scheme === 'Bearer' && policy.dpopRequired === true && dpop !== undefined) {
    report?.('token.rejected.invalid');
    return fail('this resource accepts DPoP-bound tokens only: present the token with the DPoP scheme');
  }
  const valid = await validateAccessToken(context, tenant, presented.token, policy.resource);
  if (!valid.ok) {
    report?.(valid.reason ?? 'token.rejected.invalid', valid.claims);
    return fail(valid.description);
  }
  const claims = valid.claims;
  if (scheme === 'Bearer' && claims.cnf !== undefined) {
    // RFC 9449 §7.2: a stolen bound token must not work by dropping the proof.
    report?.('dpop.bearer_downgrade', claims);
    return fail('the access token is DPoP-bound: present it with the DPoP scheme and a proof');
  }
  if (scheme === 'DPoP' && dpop !== undefined) {
    if (claims.cnf === undefined) {
      report?.('token.rejected.invalid', claims);
      return fail('the access token is not DPoP-bound: present it as Bearer');
    }
    const check = await checkDpopProof(dpop, request?.dpop, {
      method: request?.method ?? '',
      url: policy.resource,
      nonceLabel: resourceNonceLabel(policy.resource),
      accessToken: presented.token,
      nowMs: context.clock.now(),
    });
    if (!check.ok) {
      report?.(check.reason, claims);
      context.logger.info(
        { event: 'dpop_refused', reason: check.reason, endpoint: 'resource', tenant: tenant.slug },
        'DPoP proof refused at a protected resource',
      );
      return {
        ok: false,
        result: bearerChallenge({
          ...challengeBase,
          error: check.kind === 'nonce' ? 'use_dpop_nonce' : 'invalid_dpop_proof',
          description: check.description,
          ...(check.kind === 'nonce' ? { dpopNonce: check.nonce } : {}),
        }),
      };
    }
    if (check.proof.jkt !== claims.cnf.jkt) {
      report?.('dpop.key_mismatch', claims);
      return fail('the DPoP proof key is not the key the token is bound to');
    }
  }
  if (isMachineSubject(claims.sub) && !policy.allowMachineSubjects) {
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
