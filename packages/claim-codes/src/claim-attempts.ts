import { type Clock, type RateLimiter, type RateLimitOutcome, systemClock } from '@keyhold/core';
import { consumeRateLimit, optionValidators, sha256Base64url } from '@keyhold/internal';
import type { Claims } from './claims.js';
import { normalizeClaimCode } from './code.js';
import { ClaimCodesError } from './errors.js';

const check = optionValidators(ClaimCodesError);

/**
 * A budget of claim-code guesses per principal (the gate `@keyhold/mcp` takes as `claimCodes.attempts`, or
 * {@link createClaimAttemptGate} directly). Off unless given. Name the principal by user AND client (as
 * `@keyhold/mcp` does): a budget per user alone lets one of the user's clients spend it for all of them.
 */
export interface ClaimFailureRateLimit {
  /** The counter store (`createMemoryRateLimiter()` from `@keyhold/core`, or a Redis one for several instances). */
  readonly limiter: RateLimiter;
  /** Unverified codes a principal may present per window. Default 10. */
  readonly limit?: number;
  /** Window length in seconds. Default 60. */
  readonly windowSeconds?: number;
  /** Time of the windows. Default: the system clock. */
  readonly clock?: Clock;
  /** Valid codes remembered so that presenting them again costs nothing (oldest forgotten first). Default 10 000. */
  readonly maxKnownCodes?: number;
}

/**
 * Stops claim-code guessing: call {@link ClaimAttemptGate.admit} before a presented code is looked up, and
 * validate through {@link ClaimAttemptGate.claims}, which teaches the gate which codes are valid.
 *
 * @example
 * ```ts
 * const gate = createClaimAttemptGate(claims, { limiter });
 * const admitted = await gate.admit(`sub:${subject}:client:${clientId}`, presentedCode);
 * if (!admitted.ok) return tooManyRequests(admitted.retryAfterSeconds);
 * const result = await gate.claims.validate(presentedCode);
 * ```
 */
export interface ClaimAttemptGate {
  /**
   * Decides, before any lookup, whether `principal` may have `code` checked. A well-formed code not known to be
   * valid spends one unit of the principal's budget *before* it is looked up, so concurrent guesses cannot
   * overtake the counter; a code already validated (by anyone: holding it is the proof) and an absent or
   * malformed one (never looked up in the store) spend nothing. A limiter outage throws.
   */
  admit(principal: string, code: string | undefined): Promise<RateLimitOutcome>;
  /** The claim service, with `validate` recording valid codes (and forgetting ones no longer valid). */
  readonly claims: Claims;
}

/**
 * Creates a {@link ClaimAttemptGate} over `claims`. Options are validated here (`ERR_INVALID_OPTIONS`).
 * Counters are named `claim:attempts:<principal>` (hashed when long) in the limiter.
 *
 * @example
 * ```ts
 * const gate = createClaimAttemptGate(claims, { limiter: createMemoryRateLimiter(), limit: 10 });
 * ```
 */
export function createClaimAttemptGate(claims: Claims, options: ClaimFailureRateLimit): ClaimAttemptGate {
  if (typeof claims?.validate !== 'function')
    throw check.invalid('claims must be a Claims service (createClaims)');
  if (typeof options?.limiter?.increment !== 'function') {
    throw check.invalid('claimFailureRateLimit.limiter must be a RateLimiter');
  }
  const rule = {
    limit: check.positiveInteger('claimFailureRateLimit.limit', options.limit, 10),
    windowSeconds: check.positiveInteger('claimFailureRateLimit.windowSeconds', options.windowSeconds, 60),
  };
  const maxKnownCodes = check.positiveInteger(
    'claimFailureRateLimit.maxKnownCodes',
    options.maxKnownCodes,
    10_000,
  );
  const { limiter } = options;
  const clock = options.clock ?? systemClock;
  // Stored code → the claim's expiry. Insertion order is age order: the first entry is forgotten first.
  const known = new Map<string, number>();

  const isKnown = (code: string): boolean => {
    const expiresAt = known.get(code);
    if (expiresAt === undefined) return false;
    if (expiresAt > clock.now()) return true;
    known.delete(code);
    return false;
  };

  return {
    async admit(principal, code) {
      if (code === undefined) return { ok: true, remaining: rule.limit };
      const normalized = normalizeClaimCode(code);
      if (!normalized.ok || isKnown(normalized.code)) return { ok: true, remaining: rule.limit };
      const name = principal.length <= 128 ? principal : `h.${sha256Base64url(principal)}`;
      return consumeRateLimit(limiter, { key: `claim:attempts:${name}`, ...rule }, clock.now());
    },
    claims: {
      create: (input) => claims.create(input),
      list: () => claims.list(),
      revoke: (input) => claims.revoke(input),
      async validate(input) {
        const result = await claims.validate(input);
        if (result.ok) {
          known.delete(result.claim.code);
          if (known.size >= maxKnownCodes) {
            const oldest = known.keys().next();
            if (!oldest.done) known.delete(oldest.value);
          }
          known.set(result.claim.code, result.claim.expiresAt);
        } else if (result.reason !== 'malformed') {
          known.delete(result.code);
        }
        return result;
      },
    },
  };
}
