import { hasControlCharacter } from '../control-characters.js';
import { OAuthCoreError, OAuthError } from '../errors.js';
import type { AuthEvent, AuthEventStore } from '../storage.js';
import { isTenantSlug } from '../tenant.js';

const MAX_LIST_LIMIT = 1000;
const MAX_ID_LENGTH = 4096;

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
  if (!isTenantSlug(tenant)) throw new OAuthError('invalid_request', 'the tenant slug is malformed');
  for (const [name, value] of [
    ['clientId', query.clientId],
    ['userId', query.userId],
  ] as const) {
    if (value === undefined) continue;
    if (
      typeof value !== 'string' ||
      value === '' ||
      value.length > MAX_ID_LENGTH ||
      hasControlCharacter(value)
    ) {
      throw new OAuthError('invalid_request', `${name} must be 1 to ${MAX_ID_LENGTH} printable characters`);
    }
  }
  if (query.since !== undefined && !Number.isSafeInteger(query.since)) {
    throw new OAuthError('invalid_request', 'since must be a time in epoch milliseconds');
  }
  const limit = query.limit ?? 100;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIST_LIMIT) {
    throw new OAuthError('invalid_request', `limit must be a whole number from 1 to ${MAX_LIST_LIMIT}`);
  }
  return store.list(tenant, {
    limit,
    ...(query.clientId === undefined ? {} : { clientId: query.clientId }),
    ...(query.userId === undefined ? {} : { userId: query.userId }),
    ...(query.since === undefined ? {} : { since: query.since }),
  });
}
