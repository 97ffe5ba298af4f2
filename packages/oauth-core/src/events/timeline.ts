import { checkIds, checkTenantSlug, listLimit } from '../admin-arguments.js';
import { OAuthCoreError, OAuthError } from '../errors.js';
import type { AuthEvent, AuthEventStore } from '../storage.js';

/** What `server.listEvents` takes: a client or a user (or both), events at or after `since` (epoch ms). */
export interface TimelineQuery {
  readonly clientId?: string;
  readonly userId?: string;
  readonly since?: number;
  readonly limit?: number;
}

/**
 * Reads the timeline for `server.listEvents`, checking the query once: a malformed slug, id, `since` or
 * `limit` is `invalid_request` (never a driver error); a server without `storage.events` is misuse.
 */
export async function listTimeline(
  store: AuthEventStore | undefined,
  tenant: string,
  query: TimelineQuery,
): Promise<readonly AuthEvent[]> {
  if (store === undefined) {
    throw new OAuthCoreError('ERR_INVALID_OPTIONS', 'the storage has no events store: no timeline is kept');
  }
  checkTenantSlug(tenant);
  checkIds({ clientId: query.clientId, userId: query.userId });
  if (query.since !== undefined && !Number.isSafeInteger(query.since)) {
    throw new OAuthError('invalid_request', 'since must be a time in epoch milliseconds');
  }
  const limit = listLimit(query.limit);
  return store.list(tenant, {
    limit,
    ...(query.clientId === undefined ? {} : { clientId: query.clientId }),
    ...(query.userId === undefined ? {} : { userId: query.userId }),
    ...(query.since === undefined ? {} : { since: query.since }),
  });
}
