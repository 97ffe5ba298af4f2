import type { AuthEvent } from '@keyhold/oauth-core';
import type { AuthEventStore } from '@keyhold/oauth-core/storage';
import type { Row } from './row-mapping.js';
import type { StatementFactory } from './statements.js';

const COLUMNS = 'tenant, at, category, reason, status, error_code, grant_type, client_id, user_id, grant_id';

function eventOf(row: Row): AuthEvent {
  const optional = (name: string) =>
    row[name] === null || row[name] === undefined ? undefined : String(row[name]);
  const errorCode = optional('error_code');
  const grantType = optional('grant_type');
  const clientId = optional('client_id');
  const userId = optional('user_id');
  const grantId = optional('grant_id');
  return {
    at: Number(row['at']),
    tenant: String(row['tenant']),
    category: String(row['category']) as AuthEvent['category'],
    reason: String(row['reason']),
    status: Number(row['status']),
    ...(errorCode === undefined ? {} : { errorCode }),
    ...(grantType === undefined ? {} : { grantType }),
    ...(clientId === undefined ? {} : { clientId }),
    ...(userId === undefined ? {} : { userId }),
    ...(grantId === undefined ? {} : { grantId }),
  };
}

/**
 * The decision timeline on PostgreSQL (table `keyhold_oauth_events`, oauth migrations 9 and 10): each append
 * is one statement that inserts the event and deletes the tenant's rows past the retention and, within the
 * event's own part (anonymous or not), beyond its size bound (the deletes see the table as it was before the
 * insert, hence `OFFSET max - 1`).
 */
export function createPostgresEventStore(statement: StatementFactory): AuthEventStore {
  const append = statement(
    'append_event',
    `WITH inserted AS (
       INSERT INTO keyhold_oauth_events (${COLUMNS}, anonymous)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $13) RETURNING seq
     ), too_old AS (
       DELETE FROM keyhold_oauth_events WHERE tenant = $1 AND at < $11
     ), too_many AS (
       DELETE FROM keyhold_oauth_events WHERE tenant = $1 AND anonymous = $13 AND seq <= (
         SELECT seq FROM keyhold_oauth_events WHERE tenant = $1 AND anonymous = $13
         ORDER BY seq DESC LIMIT 1 OFFSET $12)
     )
     SELECT seq FROM inserted`,
  );
  const list = (shape: string, where: string) =>
    statement(
      `list_events_${shape}`,
      `SELECT ${COLUMNS} FROM keyhold_oauth_events
       WHERE tenant = $1 AND ${where} AND at >= $4 ORDER BY seq DESC LIMIT $5`,
    );
  const lists = {
    both: list('both', 'client_id = $2 AND user_id = $3'),
    client: list('client', 'client_id = $2 AND $3::text IS NULL'),
    user: list('user', '$2::text IS NULL AND user_id = $3'),
    none: list('none', '$2::text IS NULL AND $3::text IS NULL'),
  };
  return {
    async append(event, limits) {
      // Without the anonymous bound (a caller of the earlier contract) every event counts as a subject's.
      const apart = limits.anonymous === true && limits.maxAnonymousEventsPerTenant !== undefined;
      const max = apart ? (limits.maxAnonymousEventsPerTenant as number) : limits.maxEventsPerTenant;
      await append([
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
        limits.notBefore,
        max - 1,
        apart ? 1 : 0,
      ]);
    },
    async list(tenant, query) {
      const shape =
        query.clientId !== undefined
          ? query.userId !== undefined
            ? 'both'
            : 'client'
          : query.userId !== undefined
            ? 'user'
            : 'none';
      const { rows } = await lists[shape]([
        tenant,
        query.clientId ?? null,
        query.userId ?? null,
        query.since ?? 0,
        query.limit,
      ]);
      return rows.map(eventOf);
    },
  };
}
