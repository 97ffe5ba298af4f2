import { optionCheck } from './errors.js';

/**
 * How stale a grant's `lastUsedAt` may get before a use writes it again: at most one write a minute per grant
 * (per instance at worst), so a busy MCP session costs reads, not writes.
 */
export const GRANT_TOUCH_INTERVAL_MS = 60_000;

/**
 * How long a grant row stays once it can no longer matter, as offsets from its last use and from its
 * revocation (the `grantRetention` option, resolved once). The expiry sweep of the SQL stores deletes a
 * grant at its `expiresAt`, which the server sets from these.
 */
export interface GrantRetention {
  /** From `lastUsedAt`: the longest token lifetime, the touch interval, and the unused retention. */
  readonly afterUseMs: number;
  /** From `revokedAt`: the longest token lifetime, the touch interval, and the revoked retention. */
  readonly afterRevocationMs: number;
}

const DAY_SECONDS = 86_400;

/**
 * Checks the `grantRetention` option once. Whatever the host chooses, a row outlives every token issued
 * under its grant: a revoked grant's row is what refuses its unexpired access tokens (a token whose grant has
 * no record is judged by its `jti` and expiry alone) and keeps a leftover refresh token of its family from
 * opening a fresh grant. No token is issued under a grant after its revocation, and each issue or accepted
 * use moves `lastUsedAt` (within the touch interval), so the last token of a grant expires at most the
 * longest token lifetime plus the touch interval after `revokedAt` or `lastUsedAt`: both offsets add that
 * much to the host's retention.
 */
export function resolveGrantRetention(
  option: { readonly unusedSeconds?: number; readonly revokedSeconds?: number } | undefined,
  longestTokenLifetimeMs: number,
): GrantRetention {
  if (option !== undefined && (typeof option !== 'object' || option === null)) {
    throw optionCheck.invalid('grantRetention must be an object');
  }
  const unusedSeconds = optionCheck.positiveInteger(
    'grantRetention.unusedSeconds',
    option?.unusedSeconds,
    90 * DAY_SECONDS,
  );
  const revokedSeconds = optionCheck.positiveInteger(
    'grantRetention.revokedSeconds',
    option?.revokedSeconds,
    30 * DAY_SECONDS,
  );
  const floor = longestTokenLifetimeMs + GRANT_TOUCH_INTERVAL_MS;
  return { afterUseMs: floor + unusedSeconds * 1000, afterRevocationMs: floor + revokedSeconds * 1000 };
}

/** When a grant last used (or opened) at `usedAt` may be swept; `undefined` (kept) without a retention. */
export function sweepAfterUse(retention: GrantRetention | undefined, usedAt: number): number | undefined {
  return retention === undefined ? undefined : usedAt + retention.afterUseMs;
}

/** When a grant revoked at `revokedAt` may be swept; `undefined` (kept) without a retention. */
export function sweepAfterRevocation(
  retention: GrantRetention | undefined,
  revokedAt: number,
): number | undefined {
  return retention === undefined ? undefined : revokedAt + retention.afterRevocationMs;
}
