import type { Clock } from '@keyhold/core';
import type { AuthEvent } from '@keyhold/oauth-core';
import type { AuthEventStore } from '@keyhold/oauth-core/storage';
import type { TokenBrokerOptions } from '@keyhold/token-vault';

/** What the broker hands its `events.onEvent` hook. */
type BrokerEvent = Parameters<NonNullable<NonNullable<TokenBrokerOptions['events']>['onEvent']>>[0];

/** Appends still running beyond this are refused (the broker logs them): a hanging store holds no more. */
const MAX_PENDING_APPENDS = 64;

/**
 * The broker's `events.onEvent` hook that appends each brokered-login event to the authorization server's
 * timeline (its storage's `events` store), within the same bounds as the server's own appends. The host
 * brokers for one tenant only, so an event whose login the broker could not name (an unknown state) is
 * filed under it. Only the timeline's fields are kept: the provider and tool module stay in the logs.
 *
 * @example
 * ```ts
 * const onEvent = brokerEventsInto(storage.events, 'demo', systemClock, {
 *   maxEventsPerTenant: 10_000,
 *   maxAnonymousEventsPerTenant: 1_000,
 *   retentionSeconds: 2_592_000,
 * });
 * ```
 */
export function brokerEventsInto(
  store: AuthEventStore | undefined,
  tenant: string,
  clock: Clock,
  limits: {
    readonly maxEventsPerTenant: number;
    readonly maxAnonymousEventsPerTenant: number;
    readonly retentionSeconds: number;
  },
): (event: BrokerEvent) => Promise<void> {
  let pending = 0;
  return async (event) => {
    if (store === undefined) return;
    if (pending >= MAX_PENDING_APPENDS) throw new Error('too many pending timeline appends');
    const entry: AuthEvent = {
      at: event.at,
      tenant: event.tenant ?? tenant,
      category: event.category,
      reason: event.reason,
      status: event.status,
      ...(event.clientId === undefined ? {} : { clientId: event.clientId }),
      ...(event.userId === undefined ? {} : { userId: event.userId }),
    };
    pending += 1;
    try {
      await store.append(entry, {
        maxEventsPerTenant: limits.maxEventsPerTenant,
        // A login nobody signed in to is a stranger's: bounded apart, as the server's own refusals are.
        maxAnonymousEventsPerTenant: limits.maxAnonymousEventsPerTenant,
        anonymous: entry.userId === undefined,
        notBefore: clock.now() - limits.retentionSeconds * 1000,
      });
    } finally {
      pending -= 1;
    }
  };
}
