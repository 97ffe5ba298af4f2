import type { AuthEvent } from '@keyhold/oauth-core';
import type { AuthEventStore } from '@keyhold/oauth-core/storage';
import type { ColumnReader, Row } from './column-reader.js';
import { withOptional } from './column-reader.js';

/** The columns of `keyhold_oauth_events` an event is written to and read from, in {@link eventValues} order. */
export const EVENT_COLUMNS =
  'tenant, at, category, reason, status, error_code, grant_type, client_id, user_id, grant_id';

/**
 * An event's values in {@link EVENT_COLUMNS} order, absent fields as NULL.
 *
 * @example
 * ```ts
 * insert.run(...eventValues(event), anonymous);
 * ```
 */
export function eventValues(event: AuthEvent): unknown[] {
  return [
    event.tenant,
    event.at,
    event.category,
    event.reason,
    event.status,
    event.errorCode ?? null,
    event.grantType ?? null,
    event.clientId ?? null,
    event.userId ?? null,
    event.grantId ?? null,
  ];
}

/** The limits argument of {@link AuthEventStore.append}. */
type AppendLimits = Parameters<AuthEventStore['append']>[1];

/**
 * Which part of a tenant's timeline an append counts against, and that part's size bound. Without the
 * anonymous bound (a caller of the earlier contract) every event counts as a subject's.
 *
 * @example
 * ```ts
 * const { anonymous, max } = eventBound(limits); // anonymous: 0 | 1
 * ```
 */
export function eventBound(limits: AppendLimits): { readonly anonymous: 0 | 1; readonly max: number } {
  if (limits.anonymous === true && limits.maxAnonymousEventsPerTenant !== undefined) {
    return { anonymous: 1, max: limits.maxAnonymousEventsPerTenant };
  }
  return { anonymous: 0, max: limits.maxEventsPerTenant };
}

/**
 * A `keyhold_oauth_events` row as an event, in either dialect; NULL columns become absent fields.
 *
 * @example
 * ```ts
 * const events = rows.map((row) => eventOf(sqliteColumns, row));
 * ```
 */
export function eventOf(c: ColumnReader, row: Row): AuthEvent {
  return withOptional<AuthEvent>(
    {
      at: c.integer(row, 'at'),
      tenant: c.text(row, 'tenant'),
      category: c.text(row, 'category') as AuthEvent['category'],
      reason: c.text(row, 'reason'),
      status: c.integer(row, 'status'),
    },
    {
      errorCode: c.optionalText(row, 'error_code'),
      grantType: c.optionalText(row, 'grant_type'),
      clientId: c.optionalText(row, 'client_id'),
      userId: c.optionalText(row, 'user_id'),
      grantId: c.optionalText(row, 'grant_id'),
    },
  );
}
