import type { Clock, Logger } from '@keyhold/core';
import type { AuthEvent, AuthEventStore } from '../storage.js';

/** The validated `events` option and what emits through it (part of the server context). */
export interface EventSink {
  /**
   * Hands the event to the hook and the timeline; returns at once, never throws, never waits. `anonymous`:
   * the event names no authenticated subject (see {@link isAnonymous}), so the timeline keeps it apart.
   */
  emit(event: AuthEvent, origin?: { readonly anonymous: boolean }): void;
  readonly store?: AuthEventStore;
  readonly maxEventsPerTenant: number;
  readonly maxAnonymousEventsPerTenant: number;
  readonly retentionMs: number;
}

/**
 * Whether a handler's decision names no authenticated subject: no user the server checked (a session, a
 * code's or a grant's user, a verified token's `sub`) and no client that proved a credential without having
 * registered itself (`vouchedFor`). A client id alone proves nothing (anyone may name a public client at
 * authorize or send it to the token endpoint, and anyone may register a confidential one), so
 * such refusals are a stranger's as far as the timeline is concerned: they get their own, smaller bound and
 * can never push a person's or an authenticated client's events out.
 */
export function isAnonymous(event: {
  readonly user_id?: string;
  readonly client_authenticated?: boolean;
}): boolean {
  return event.user_id === undefined && event.client_authenticated !== true;
}

/** The hook of the `events` option. */
export type EventHook = (event: AuthEvent) => void | PromiseLike<void>;

/**
 * Appends still running beyond this are dropped (and logged): a store that hangs must not hold an unbounded
 * number of writes (and events) in memory.
 */
export const MAX_PENDING_APPENDS = 256;

/**
 * Builds the sink. The decision has already been answered when an event is emitted, so neither a throwing
 * or slow hook nor a timeline outage may change or delay the response: both are called without awaiting
 * and their failures are logged (the event's reason and category, never more).
 */
export function createEventSink(input: {
  readonly onEvent?: EventHook;
  readonly store?: AuthEventStore;
  readonly maxEventsPerTenant: number;
  readonly maxAnonymousEventsPerTenant: number;
  readonly retentionMs: number;
  readonly clock: Clock;
  readonly logger: Logger;
}): EventSink {
  const { onEvent, store, maxEventsPerTenant, maxAnonymousEventsPerTenant, retentionMs, clock, logger } =
    input;
  let pending = 0;
  const failed = (what: string, event: AuthEvent) => (error: unknown) => {
    logger.warn(
      {
        event: what,
        tenant: event.tenant,
        category: event.category,
        reason: event.reason,
        error: error instanceof Error ? error.name : typeof error,
      },
      what === 'event_hook_failed' ? 'the events hook failed' : 'the event timeline could not be written',
    );
  };
  function emit(event: AuthEvent, origin?: { readonly anonymous: boolean }): void {
    const frozen = Object.freeze({ ...event });
    if (onEvent !== undefined) {
      try {
        const returned = onEvent(frozen);
        if (returned !== undefined && typeof returned?.then === 'function') {
          returned.then(undefined, failed('event_hook_failed', frozen));
        }
      } catch (error) {
        failed('event_hook_failed', frozen)(error);
      }
    }
    if (store === undefined) return;
    if (pending >= MAX_PENDING_APPENDS) {
      failed('event_dropped', frozen)(new Error('too many pending appends'));
      return;
    }
    pending += 1;
    let appending: Promise<void>;
    try {
      appending = store.append(frozen, {
        maxEventsPerTenant,
        maxAnonymousEventsPerTenant,
        anonymous: origin?.anonymous === true,
        notBefore: clock.now() - retentionMs,
      });
    } catch (error) {
      appending = Promise.reject(error);
    }
    appending.then(
      () => {
        pending -= 1;
      },
      (error: unknown) => {
        pending -= 1;
        failed('event_append_failed', frozen)(error);
      },
    );
  }
  return {
    emit,
    ...(store === undefined ? {} : { store }),
    maxEventsPerTenant,
    maxAnonymousEventsPerTenant,
    retentionMs,
  };
}
