import type { AuthEventStore } from '@keyhold/oauth-core/storage';
import { EVENT_COLUMNS, eventBound, eventOf, eventValues, filterShape } from '@keyhold/store-sql-common';
import { postgresColumns } from './row-mapping.js';
import type { StatementFactory } from './statements.js';

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
       INSERT INTO keyhold_oauth_events (${EVENT_COLUMNS}, anonymous)
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
      `SELECT ${EVENT_COLUMNS} FROM keyhold_oauth_events
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
      const { anonymous, max } = eventBound(limits);
      await append([...eventValues(event), limits.notBefore, max - 1, anonymous]);
    },
    async list(tenant, query) {
      const shape = filterShape(query);
      const { rows } = await lists[shape]([
        tenant,
        query.clientId ?? null,
        query.userId ?? null,
        query.since ?? 0,
        query.limit,
      ]);
      return rows.map((row) => eventOf(postgresColumns, row));
    },
  };
}
