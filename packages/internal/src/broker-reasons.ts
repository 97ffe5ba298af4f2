// Written once here because two packages that do not depend on each other publish it: @keyhold/oauth-core's
// catalogue (AUTH_EVENT_REASONS) spreads it, so a host can append the broker's events to that timeline unchanged,
// and @keyhold/token-vault emits it (its published tuple type, which may not import this private package, is
// checked against this list by the compiler). Both bundle this package, so neither depends on the other.
const CODES = [
  'broker.login_started',
  'broker.login_completed',
  'broker.login_failed.state_unknown',
  'broker.login_failed.wrong_user',
  'broker.login_failed.issuer_mismatch',
  'broker.login_failed.provider_denied',
  'broker.login_failed.code_missing',
  'broker.login_failed.exchange_refused',
  'broker.login_failed.provider_unavailable',
  'broker.login_failed.provider_unconfigured',
  'broker.token_refreshed',
  'broker.refresh_failed.client_refused',
  'broker.refresh_failed.provider_unavailable',
  'broker.token_revoked.provider',
  'broker.token_deleted',
] as const;

/**
 * Broker reason codes, version 1 (token-vault README "Events and reason codes v1"). A code once published
 * keeps its meaning; codes may be added in a minor release, none is removed before a major one. They share
 * the `broker.` prefix of the `broker` category of `@keyhold/oauth-core`'s timeline.
 *
 * @example
 * ```ts
 * const known = (BROKER_EVENT_REASONS as readonly string[]).includes('broker.token_deleted'); // true
 * ```
 */
export const BROKER_EVENT_REASONS: typeof CODES = Object.freeze(CODES);
