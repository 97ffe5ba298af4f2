import type { HandlerResult } from '@keyhold/core';
import { jsonResult } from '@keyhold/core';
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
   * accepted. Default `false`: they get 403 `insufficient_scope`, since the resource acts for users.
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
export function quoted(value: string): string {
  return `"${value.replace(/[\\"]/g, '\\$&').replace(/[^\t\x20-\x7e]/g, '?')}"`;
}

/** A Bearer challenge for a slug and resource metadata URL. */
export function bearerChallenge(
  realm: string,
  resourceMetadataUrl: string | undefined,
  error: string,
  description: string,
  scope?: string,
): HandlerResult {
  const parts = [`realm=${quoted(realm)}`];
  if (resourceMetadataUrl) parts.push(`resource_metadata=${quoted(resourceMetadataUrl)}`);
  parts.push(`error=${quoted(error)}`, `error_description=${quoted(description)}`);
  if (scope !== undefined && scope !== '') parts.push(`scope=${quoted(scope)}`);
  return jsonResult(
    error === 'insufficient_scope' ? 403 : 401,
    { error, error_description: description },
    { 'www-authenticate': `Bearer ${parts.join(', ')}`, 'cache-control': 'no-store' },
  );
}

/** The scopes an operation needs: the tenant's resource scopes for its own resource, plus the extra ones. */
export function requiredScopesFor(tenant: Tenant, options: VerifyAccessTokenOptions): string[] {
  const resource = options.resource ?? tenant.resource;
  const scopes = [
    ...(resource === tenant.resource ? tenant.resourceScopes : []),
    ...(options.requiredScopes ?? []),
  ];
  return [...new Set(scopes)].filter((scope) => scope !== 'offline_access');
}

/** Verifies the bearer token of a protected-resource request for a resolved tenant. */
export async function checkBearer(
  context: ServerContext,
  tenant: Tenant,
  authorization: string | undefined,
  options: VerifyAccessTokenOptions,
): Promise<AccessTokenCheck> {
  const required = requiredScopesFor(tenant, options);
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
  const fail = (description: string): AccessTokenCheck => ({
    ok: false,
    result: bearerChallenge(tenant.slug, tenant.resourceMetadataUrl, 'invalid_token', description, scopeHint),
  });
  const forbidden = (description: string): AccessTokenCheck => ({
    ok: false,
    result: bearerChallenge(
      tenant.slug,
      tenant.resourceMetadataUrl,
      'insufficient_scope',
      description,
      scopeHint ?? '',
    ),
  });
  if (authorization === undefined || authorization === '') return fail('a bearer token is required');
  const match = /^Bearer +([A-Za-z0-9\-._~+/]+=*)\s*$/i.exec(authorization);
  if (!match?.[1]) return fail('the Authorization header must be "Bearer <token>"');
  const now = context.clock.now();
  const verified = await verifyAccessTokenJwt(tenant.keys, match[1], tenant.issuer, now);
  if (!verified.ok) return fail(verified.description);
  const claims = verified.claims;
  const resource = options.resource ?? tenant.resource;
  if (!audiences(claims).includes(resource)) return fail('the access token is not for this resource');
  if (await context.storage.revokedAccessTokens.isRevoked(tenant.slug, claims.jti, now)) {
    return fail('the access token was revoked');
  }
  if (claims.sub.startsWith(MACHINE_SUBJECT_PREFIX) && options.allowMachineSubjects !== true) {
    return forbidden('this resource acts for users; a token a client obtained for itself is not accepted');
  }
  const granted = scopeList(claims.scope);
  if (!isWithin(required, granted)) return forbidden('the access token lacks a required scope');
  return { ok: true, claims };
}
