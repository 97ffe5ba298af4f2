import type { Clock, Logger } from '@keyhold/core';
import { StorageUnavailableError } from '@keyhold/core';
import type { AuthInfo } from '@modelcontextprotocol/server';
import { storageUnavailableResponse } from './outage.js';
import type { Principal } from './tool-module.js';

/**
 * The SDK's `OAuthTokenVerifier` shape: `@keyhold/oauth-core`'s `server.tokenVerifier(tenant)` is one. It
 * throws an error whose `code` is `'invalid_token'` for a token it does not accept. `@keyhold/core`'s
 * `StorageUnavailableError` (the revocation list could not be read) answers 503 with `Retry-After`, never a
 * 401, so the client keeps its token; any other error answers 500.
 */
export interface McpTokenVerifier {
  verifyAccessToken(token: string): Promise<AuthInfo>;
}

/**
 * How requests are authenticated and which tokens the MCP resource accepts.
 */
export interface McpAuthenticationOptions {
  readonly verifier: McpTokenVerifier;
  /** The RFC 9728 metadata URL named in every challenge (`resource_metadata`). */
  readonly resourceMetadataUrl: string;
  /**
   * Scopes every request needs. Default `['mcp:tools']`. A granted scope covers a required one when they
   * are equal or the required one extends it after a colon (`mcp` covers `mcp:tools`). `offline_access`
   * is never required nor named in a challenge (it governs refresh tokens, not resource access).
   */
  readonly requiredScopes?: readonly string[];
  /**
   * Accept tokens a client obtained for itself (client_credentials; `AuthInfo.extra.subjectType` is
   * `'client'`, or there is no `extra.sub`). Default `false`: they get 403 `invalid_token` saying machine
   * clients are not accepted, with no `scope` hint (clients stop instead of stepping up), since tools act
   * for users. Set it per endpoint: each resource decides whether it serves machine clients.
   */
  readonly allowMachineSubjects?: boolean;
  /** The `realm` of challenges. Default: the public URL's origin. */
  readonly realm?: string;
}

/** The outcome of authenticating one request. */
export type Authentication =
  | { readonly ok: true; readonly authInfo: AuthInfo; readonly principal: Principal }
  | { readonly ok: false; readonly response: Response };

// A quoted-string of printable ASCII (RFC 9110 §5.6.4): nothing a client sent can split or break the header.
function quoted(value: string): string {
  return `"${value.replace(/[\\"]/g, '\\$&').replace(/[^\t\x20-\x7e]/g, '?')}"`;
}

const MACHINE_REFUSAL =
  'machine clients are not accepted: this resource acts for users, and a token a client obtained for itself (client_credentials) is not accepted here';

/** Whether `granted` covers `required`: equal, or `required` extends it after a colon. */
export function scopeCovers(granted: string, required: string): boolean {
  return granted === required || required.startsWith(`${granted}:`);
}

/** Creates the bearer check of an endpoint; options were validated by the caller. */
export function createAuthenticator(
  options: McpAuthenticationOptions,
  realm: string,
  clock: Clock,
  logger: Logger,
): (request: Request) => Promise<Authentication> {
  const required = [...new Set(options.requiredScopes ?? ['mcp:tools'])].filter(
    (scope) => scope !== 'offline_access',
  );
  const scopeHint = required.join(' ');
  const allowMachines = options.allowMachineSubjects === true;

  // RFC 6750 §3.1: a request without credentials gets no error code; a refusal a new scope cannot cure
  // gets no scope hint, so clients do not step up to a token just like the one they hold.
  const challenge = (
    status: 401 | 403,
    error: 'invalid_token' | 'insufficient_scope' | undefined,
    description: string,
    withScope = true,
  ): Authentication => {
    const parts = [`realm=${quoted(realm)}`, `resource_metadata=${quoted(options.resourceMetadataUrl)}`];
    if (error !== undefined) parts.push(`error=${quoted(error)}`, `error_description=${quoted(description)}`);
    if (withScope && scopeHint !== '') parts.push(`scope=${quoted(scopeHint)}`);
    const body =
      error === undefined ? { error_description: description } : { error, error_description: description };
    return {
      ok: false,
      response: new Response(JSON.stringify(body), {
        status,
        headers: {
          'content-type': 'application/json',
          'cache-control': 'no-store',
          'www-authenticate': `Bearer ${parts.join(', ')}`,
        },
      }),
    };
  };

  return async (request) => {
    const header = request.headers.get('authorization');
    // No Bearer credentials: nothing, or another scheme (a DPoP-bound token is not one this resource takes).
    if (header === null || !/^Bearer(?: |$)/i.test(header.trimStart())) {
      logger.debug({ event: 'authentication_failed', reason: 'no_token' }, 'mcp: no bearer token');
      return challenge(401, undefined, 'a bearer token is required');
    }
    const match = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(header);
    if (!match?.[1])
      return challenge(401, 'invalid_token', 'the Authorization header must be "Bearer <token>"');
    let authInfo: AuthInfo;
    try {
      authInfo = await options.verifier.verifyAccessToken(match[1]);
    } catch (error) {
      if ((error as { code?: unknown } | null)?.code === 'invalid_token') {
        const description = error instanceof Error ? error.message.slice(0, 200) : 'the token is not valid';
        logger.info({ event: 'authentication_failed', reason: 'invalid_token' }, 'mcp: bearer token refused');
        return challenge(401, 'invalid_token', description);
      }
      if (error instanceof StorageUnavailableError) {
        return { ok: false, response: storageUnavailableResponse(error, logger, 'authentication') };
      }
      throw error;
    }
    // Seconds, as AuthInfo has it; a token without an expiry is refused, as the SDK's own gate does.
    if (authInfo.expiresAt === undefined || authInfo.expiresAt * 1000 <= clock.now()) {
      return challenge(401, 'invalid_token', 'the access token has expired');
    }
    const extra = authInfo.extra ?? {};
    const sub = typeof extra['sub'] === 'string' && extra['sub'] !== '' ? extra['sub'] : undefined;
    const machine = sub === undefined || extra['subjectType'] === 'client';
    if (machine && !allowMachines) {
      logger.info(
        { event: 'authentication_failed', reason: 'machine_subject' },
        'mcp: machine token refused',
      );
      // Not insufficient_scope: the token holds the scopes, and both MCP SDKs answer that code with a
      // step-up that fetches a second token just like the first. A 403 without it is final for them.
      return challenge(403, 'invalid_token', MACHINE_REFUSAL, false);
    }
    const missing = required.filter((need) => !authInfo.scopes.some((granted) => scopeCovers(granted, need)));
    if (missing.length > 0) {
      logger.info({ event: 'authentication_failed', reason: 'insufficient_scope' }, 'mcp: scope missing');
      return challenge(403, 'insufficient_scope', 'the access token lacks a required scope');
    }
    const tenantId = typeof extra['tenantId'] === 'string' ? extra['tenantId'] : undefined;
    return {
      ok: true,
      authInfo,
      principal: {
        userId: sub ?? `client:${authInfo.clientId}`,
        clientId: authInfo.clientId,
        ...(tenantId === undefined ? {} : { tenantId }),
      },
    };
  };
}
