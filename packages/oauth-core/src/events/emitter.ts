import type { Clock, Logger } from '@keyhold/core';
import type { AuthEvent, AuthEventStore } from '../storage.js';

/** The validated `events` option and what emits through it (part of the server context). */
export interface EventSink {
  /** Hands the event to the hook and the timeline; returns at once, never throws, never waits. */
  emit(event: AuthEvent): void;
  readonly store?: AuthEventStore;
  readonly maxEventsPerTenant: number;
  readonly retentionMs: number;
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
  readonly retentionMs: number;
  readonly clock: Clock;
  readonly logger: Logger;
}): EventSink {
  const { onEvent, store, maxEventsPerTenant, retentionMs, clock, logger } = input;
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
  function emit(event: AuthEvent): void {
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
      appending = store.append(frozen, { maxEventsPerTenant, notBefore: clock.now() - retentionMs });
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
  return { emit, ...(store === undefined ? {} : { store }), maxEventsPerTenant, retentionMs };
}
