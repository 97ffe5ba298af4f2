import { type Logger, silentLogger } from '@keyhold/core';
import type { Claims } from '../claims.js';

/**
 * What a session may see right now.
 *
 * - `scoped`: a valid code narrows the session to the tool modules under `scopeDir`.
 * - `unscoped`: no code, or one that is unknown, expired or malformed: full access, as the spec says.
 * - `refused`: the same cases when the host set `requireClaimCode`; the request must be turned away.
 *
 * @example
 * ```ts
 * const scope = await session.resolve();
 * if (scope.kind === 'scoped') console.log(scope.scopeDir);
 * ```
 */
export type SessionScope =
  | { readonly kind: 'scoped'; readonly scopeDir: string; readonly expiresAt: number }
  | { readonly kind: 'unscoped'; readonly reason: SessionScopeReason }
  | { readonly kind: 'refused'; readonly reason: SessionScopeReason };

/**
 * Why a session has no scope.
 *
 * @example
 * ```ts
 * if (scope.kind === 'refused' && scope.reason === 'expired') console.warn('claim expired');
 * ```
 */
export type SessionScopeReason = 'no_code' | 'unknown' | 'expired' | 'malformed';

/**
 * Options of {@link createClaimSession}.
 *
 * @example
 * ```ts
 * const options: ClaimSessionOptions = { claims, requireClaimCode: true };
 * ```
 */
export interface ClaimSessionOptions {
  readonly claims: Claims;
  /** Turn away sessions without a valid code instead of giving them full access. Default `false`. */
  readonly requireClaimCode?: boolean;
  /** Default: silent. */
  readonly logger?: Logger;
}

/**
 * The claim state of one MCP session: the code it last presented, checked again on every request.
 *
 * @example
 * ```ts
 * session.present(claimCodeFromHeaders(extra.requestInfo?.headers));
 * const scope = await session.resolve();
 * ```
 */
export interface ClaimSession {
  /**
   * Records a code the session presented (header or `?claim=`). `undefined` changes nothing, so a session
   * that showed its code once — on the SSE GET stream, say — keeps it on requests that do not repeat it;
   * a later, different code replaces it.
   */
  present(code: string | undefined): void;
  /** Validates the recorded code now, so a revocation or expiry counts on the very next request. */
  resolve(): Promise<SessionScope>;
}

/**
 * Creates the claim state of one MCP session; make one per session (per transport).
 *
 * @example
 * ```ts
 * const session = createClaimSession({ claims });
 * registerToolModules(server, modules, { session });
 * ```
 */
export function createClaimSession(options: ClaimSessionOptions): ClaimSession {
  const { claims } = options;
  const requireClaimCode = options.requireClaimCode ?? false;
  const logger = options.logger ?? silentLogger;
  let code: string | undefined;

  const withoutScope = (reason: SessionScopeReason): SessionScope =>
    requireClaimCode ? { kind: 'refused', reason } : { kind: 'unscoped', reason };

  return {
    present(presented) {
      if (presented !== undefined) code = presented;
    },
    async resolve() {
      if (code === undefined) return withoutScope('no_code');
      const result = await claims.validate(code);
      switch (result.status) {
        case 'valid':
          return { kind: 'scoped', scopeDir: result.claim.scopeDir, expiresAt: result.claim.expiresAt };
        case 'malformed':
          logger.debug({}, 'malformed claim code presented');
          return withoutScope('malformed');
        default:
          logger.debug(
            { code: `${result.code.slice(0, 2)}…`, status: result.status },
            'claim code not valid',
          );
          return withoutScope(result.status);
      }
    },
  };
}
