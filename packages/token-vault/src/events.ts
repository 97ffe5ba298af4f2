import type { Logger } from '@keyhold/core';
import { BROKER_EVENT_REASONS as CATALOGUED } from '@keyhold/internal';

/**
 * Broker reason codes, version 1 (README "Events and reason codes v1"). A code once published keeps its
 * meaning; codes may be added in a minor release, none is removed before a major one. They share the
 * `broker.` prefix of the `broker` category of `@keyhold/oauth-core`'s timeline, whose catalogue lists
 * them too, so a host can append these events to that timeline unchanged.
 */
// The value is the one list in @keyhold/internal that oauth-core's catalogue spreads; the tuple is written out
// here because the published types may not import that private package, and the assignment fails to compile
// the moment the two differ in a code or its place.
export const BROKER_EVENT_REASONS: readonly [
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
] = CATALOGUED;

/** One code of {@link BROKER_EVENT_REASONS}. */
export type BrokerEventReason = (typeof BROKER_EVENT_REASONS)[number];

/**
 * One brokered-login decision, with the field names of `@keyhold/oauth-core`'s `AuthEvent` (so the host can
 * append it to that timeline as it is). Ids only: never a token, the provider's code or the state.
 *
 * @example
 * ```ts
 * const event: BrokerEvent = {
 *   at: Date.now(), tenant: 'demo', category: 'broker', reason: 'broker.login_completed', status: 200,
 *   userId: 'alice', provider: 'github', toolModuleId: 'repos',
 * };
 * ```
 */
export interface BrokerEvent {
  /** Epoch ms, by the broker's clock. */
  readonly at: number;
  /**
   * The tenant of the ask. Absent only when the request names no login the broker knows (an unknown,
   * already used or expired state): then nothing says whose tenant it was.
   */
  readonly tenant?: string;
  readonly category: 'broker';
  readonly reason: BrokerEventReason;
  /**
   * The HTTP status of the browser step's page (connect, callback); 401 when a tool call was given a login
   * link, 200 for a refresh or a deletion, 401 for a grant the provider revoked, 502 for a provider outage.
   */
  readonly status: number;
  /** The user who asked (or, when the login is unknown, the user signed in to the browser). */
  readonly userId?: string;
  /** The MCP client whose tool call asked, when the ask named it (`AskContext.clientId`). */
  readonly clientId?: string;
  readonly provider?: string;
  readonly toolModuleId?: string;
}

/**
 * The validated `events` option: emits to the hook without waiting; never throws.
 *
 * @example
 * ```ts
 * sink.emit({ tenant: 'demo', reason: 'broker.token_deleted', status: 200, userId: 'alice' });
 * ```
 */
export interface BrokerEventSink {
  emit(event: Omit<BrokerEvent, 'at' | 'category'>): void;
}

/**
 * The hook of the `events` option.
 *
 * @example
 * ```ts
 * const hook: BrokerEventHook = (event) => console.log(event.reason);
 * ```
 */
export type BrokerEventHook = (event: BrokerEvent) => void | PromiseLike<void>;

/**
 * Builds the sink. A decision's answer is settled before its event is emitted, so a hook that throws,
 * rejects or hangs never changes or delays it: the hook is not awaited and its failure is logged with the
 * event's reason only (the hook's message may quote what it was given).
 *
 * @example
 * ```ts
 * const sink = createBrokerEventSink({ onEvent: (event) => audit.write(event), now: Date.now, logger });
 * ```
 */
export function createBrokerEventSink(input: {
  readonly onEvent?: BrokerEventHook;
  readonly now: () => number;
  readonly logger: Logger;
}): BrokerEventSink {
  const { onEvent, now, logger } = input;
  const failed = (event: BrokerEvent) => (error: unknown) => {
    logger.warn(
      {
        event: 'event_hook_failed',
        reason: event.reason,
        error: error instanceof Error ? error.name : typeof error,
      },
      'token-vault: the events hook failed',
    );
  };
  return {
    emit(fields) {
      if (onEvent === undefined) return;
      const event: BrokerEvent = Object.freeze({ at: now(), category: 'broker', ...fields });
      try {
        const returned = onEvent(event);
        if (returned !== undefined && typeof returned?.then === 'function') {
          returned.then(undefined, failed(event));
        }
      } catch (error) {
        failed(event)(error);
      }
    },
  };
}
