import type { AuthEvent } from '@keyhold/oauth-core';
import type { TokenBrokerOptions } from '@keyhold/token-vault';

/** What the broker hands its `events.onEvent` hook. */
type BrokerEvent = Parameters<NonNullable<NonNullable<TokenBrokerOptions['events']>['onEvent']>>[0];

/**
 * A brokered-login event as an entry of the authorization server's timeline (`server.recordEvent`), so one
 * timeline, one hook and one set of bounds hold both. The host brokers for one tenant only, so an event whose
 * login the broker could not name (an unknown state) is filed under it. Only the timeline's fields are kept:
 * the provider and tool module stay in the logs.
 *
 * @example
 * ```ts
 * const broker = createTokenBroker({ ...options, events: { onEvent: (event) => oauth.recordEvent(timelineEntry(event, 'demo')) } });
 * ```
 */
export function timelineEntry(event: BrokerEvent, tenant: string): AuthEvent {
  return {
    at: event.at,
    tenant: event.tenant ?? tenant,
    category: event.category,
    reason: event.reason,
    status: event.status,
    ...(event.clientId === undefined ? {} : { clientId: event.clientId }),
    ...(event.userId === undefined ? {} : { userId: event.userId }),
  };
}
