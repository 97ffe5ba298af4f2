import type { Logger } from '@keyhold/core';
import type { Principal } from './tool-module.js';

/** The request header that carries a claim code, on every request of either era. */
export const CLAIM_CODE_HEADER = 'mcp-claim-code';
/** The query parameter that carries a claim code, for clients that cannot set headers. */
export const CLAIM_CODE_QUERY_PARAMETER = 'claim';

/**
 * Claim codes as `@keyhold/mcp` uses them: `@keyhold/claim-codes`' `Claims` and `ClaimAttemptGate` fit
 * as they are.
 *
 * @example
 * ```ts
 * const gate = createClaimAttemptGate(claims, { limiter });
 * const claimCodes: McpClaimCodes = { claims: gate.claims, attempts: gate, isInScope: isFileInScope };
 * ```
 */
export interface McpClaimCodes {
  /** Validates a presented code (`Claims` of `@keyhold/claim-codes`; pass the gate's when guesses are limited). */
  readonly claims: {
    validate(
      code: string,
    ): Promise<
      | { readonly ok: true; readonly claim: { readonly scopeDir: string } }
      | { readonly ok: false; readonly reason: string }
    >;
  };
  /**
   * Spends a guess budget before a code is looked up (`ClaimAttemptGate` of `@keyhold/claim-codes`). The
   * endpoint passes one budget name per user AND client (`sub:<user>:client:<client>`), so one client's
   * guesses never make the same user's other clients wait. Over budget, the request is answered 429 with
   * `Retry-After`. Default: no budget.
   */
  readonly attempts?: {
    admit(
      principal: string,
      code: string | undefined,
    ): Promise<{ readonly ok: true } | { readonly ok: false; readonly retryAfterSeconds: number }>;
  };
  /**
   * Whether a tool module's source file lies under a claim's directory. Pass `isFileInScope` of
   * `@keyhold/claim-codes/node` to resolve symlinks on Node. Default: a plain path-prefix comparison.
   */
  readonly isInScope?: (scopeDir: string, sourcePath: string) => boolean;
  /** Refuse requests that present no code (403). Default `false`: no code, every tool module. */
  readonly requireClaimCode?: boolean;
  /**
   * What a presented code that is not valid (unknown, expired, revoked, malformed) does. `'unscoped'`
   * (default, as the specification says: "it is not an error") serves the request like one without a
   * code. `'refuse'` answers 403 instead: pick it when a claim narrows a client for safety, because then a
   * code that lapses or is revoked would otherwise widen that client to every tool module. Either way the
   * guess spends the `attempts` budget (429 over it) and is logged as `claim_code_invalid`. With
   * `requireClaimCode`, an invalid code is always refused.
   */
  readonly onInvalid?: 'unscoped' | 'refuse';
}

/** What a request's claim decides: the directory it is narrowed to, none, or a ready refusal. */
export type ClaimDecision =
  | { readonly kind: 'scoped'; readonly scopeDir: string }
  | { readonly kind: 'unscoped' }
  | { readonly kind: 'refused'; readonly response: Response };

/** The code a request presents: the header first, then `?claim=`; empty counts as none. */
export function presentedClaimCode(request: Request, url: URL): string | undefined {
  const header = request.headers.get(CLAIM_CODE_HEADER);
  if (header !== null && header.trim() !== '') return header;
  const values = url.searchParams.getAll(CLAIM_CODE_QUERY_PARAMETER);
  const joined = values.join(', ');
  return joined.trim() === '' ? undefined : joined;
}

/**
 * The budget a request's claim-code guesses spend: the user's and the client's, together. Keyed on the user
 * alone, one client (a stale or hostile one the user once authorized) could spend the whole budget and
 * make every other client's new, valid code answer 429. Both parts are percent-encoded so no id can
 * impersonate another pair.
 */
export function claimAttemptPrincipal(principal: Pick<Principal, 'userId' | 'clientId'>): string {
  return `sub:${encodeURIComponent(principal.userId)}:client:${encodeURIComponent(principal.clientId)}`;
}

/** The default {@link McpClaimCodes.isInScope}: `sourcePath` is `scopeDir` or lies below it. */
export function isUnderDirectory(scopeDir: string, sourcePath: string): boolean {
  const dir = scopeDir.replace(/[\\/]+$/, '');
  return sourcePath === dir || sourcePath.startsWith(`${dir}/`) || sourcePath.startsWith(`${dir}\\`);
}

function refused(
  status: number,
  message: string,
  headers: Record<string, string> = {},
  data?: Record<string, unknown>,
): ClaimDecision {
  const error = data === undefined ? { code: -32000, message } : { code: -32000, message, data };
  return {
    kind: 'refused',
    response: new Response(JSON.stringify({ jsonrpc: '2.0', error, id: null }), {
      status,
      headers: { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers },
    }),
  };
}

/**
 * Decides the claim of one request. Runs on every request, so a revoked or expired code counts on the
 * very next one. A code that is presented but not valid is served unscoped (the specification's rule) or
 * refused (403) when the host chose `onInvalid: 'refuse'`; guesses spend the budget in both modes, since
 * the answer (narrowed or not) tells a guesser whether a code exists.
 */
export async function decideClaim(
  claimCodes: McpClaimCodes | undefined,
  code: string | undefined,
  principal: string,
  logger: Logger,
): Promise<ClaimDecision> {
  if (claimCodes === undefined) return { kind: 'unscoped' };
  if (code === undefined) {
    return claimCodes.requireClaimCode === true
      ? refused(403, 'Forbidden: a valid claim code is required (Mcp-Claim-Code header).')
      : { kind: 'unscoped' };
  }
  if (claimCodes.attempts !== undefined) {
    const admitted = await claimCodes.attempts.admit(principal, code);
    if (!admitted.ok) {
      logger.warn(
        { event: 'rate_limited', endpoint: 'mcp_claim_code', retryAfterSeconds: admitted.retryAfterSeconds },
        'mcp: claim-code attempts over the limit',
      );
      return refused(
        429,
        `Too many claim-code attempts; retry in ${admitted.retryAfterSeconds} s.`,
        { 'retry-after': String(admitted.retryAfterSeconds) },
        { error: 'rate_limited', retry_after_seconds: admitted.retryAfterSeconds },
      );
    }
  }
  const result = await claimCodes.claims.validate(code);
  if (result.ok) return { kind: 'scoped', scopeDir: result.claim.scopeDir };
  const refuse = claimCodes.onInvalid === 'refuse' || claimCodes.requireClaimCode === true;
  // The code itself is never logged: it is a bearer secret for the directory it names.
  logger.info(
    { event: 'claim_code_invalid', reason: result.reason, action: refuse ? 'refused' : 'unscoped' },
    refuse ? 'mcp: claim code not valid; request refused' : 'mcp: claim code not valid; serving unscoped',
  );
  if (!refuse) return { kind: 'unscoped' };
  return refused(403, 'Forbidden: the claim code is not valid (unknown, expired or revoked).');
}
