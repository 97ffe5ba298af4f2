import type { HandlerResult } from '@keyhold/core';
import { jsonResult } from '@keyhold/core';
import type { ServerContext } from './options.js';
import { isWithin } from './scopes.js';
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
  /** Every one of these scopes must be granted, or the answer is 403 `insufficient_scope`. */
  readonly requiredScopes?: readonly string[];
  /** The audience the token must carry. Default: the tenant's protected resource (`{issuer}/mcp`). */
  readonly resource?: string;
}

/**
 * The outcome of verifying a bearer token: the claims, or a ready 401/403 with its `WWW-Authenticate`
 * challenge (RFC 6750 §3, RFC 9728 §5.1) to send as it is.
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
  if (scope !== undefined) parts.push(`scope=${quoted(scope)}`);
  return jsonResult(
    error === 'insufficient_scope' ? 403 : 401,
    { error, error_description: description },
    { 'www-authenticate': `Bearer ${parts.join(', ')}`, 'cache-control': 'no-store' },
  );
}

/** Verifies the bearer token of a protected-resource request for a resolved tenant. */
export async function checkBearer(
  context: ServerContext,
  tenant: Tenant,
  authorization: string | undefined,
  options: VerifyAccessTokenOptions,
): Promise<AccessTokenCheck> {
  const fail = (description: string): AccessTokenCheck => ({
    ok: false,
    result: bearerChallenge(tenant.slug, tenant.resourceMetadataUrl, 'invalid_token', description),
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
  const required = options.requiredScopes ?? [];
  const granted = claims.scope === undefined ? [] : claims.scope.split(' ');
  if (!isWithin(required, granted)) {
    return {
      ok: false,
      result: bearerChallenge(
        tenant.slug,
        tenant.resourceMetadataUrl,
        'insufficient_scope',
        'the access token lacks a required scope',
        required.join(' '),
      ),
    };
  }
  return { ok: true, claims };
}
