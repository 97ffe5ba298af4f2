import type { AuthEvent } from '@keyhold/oauth-core';
import type { AuthEventStore } from '@keyhold/oauth-core/storage';
import type { SqliteDatabase } from './database.js';
import type { Row } from './row-mapping.js';

const COLUMNS =
  'tenant, at, category, reason, status, error_code, grant_type, client_id, user_id, grant_id' as const;

/** One statement per filter shape, so a client's or a user's events are read through their own index. */
function listStatement(db: SqliteDatabase, where: string) {
  return db.prepare(
    `SELECT ${COLUMNS} FROM keyhold_oauth_events WHERE tenant = ? AND ${where} AND at >= ? ORDER BY seq DESC LIMIT ?`,
  );
}

function eventOf(row: Row): AuthEvent {
  const optional = (name: string) =>
    row[name] === null || row[name] === undefined ? undefined : String(row[name]);
  const errorCode = optional('error_code');
  const grantType = optional('grant_type');
  const clientId = optional('client_id');
  const userId = optional('user_id');
  const grantId = optional('grant_id');
  return {
    at: Number(row.at),
    tenant: String(row.tenant),
    category: String(row.category) as AuthEvent['category'],
    reason: String(row.reason),
    status: Number(row.status),
    ...(errorCode === undefined ? {} : { errorCode }),
    ...(grantType === undefined ? {} : { grantType }),
    ...(clientId === undefined ? {} : { clientId }),
    ...(userId === undefined ? {} : { userId }),
    ...(grantId === undefined ? {} : { grantId }),
  };
}

/**
 * The decision timeline on SQLite (table `keyhold_oauth_events`, oauth migrations 9 and 10): one insert and
 * the tenant's two prunes (age, then count within the event's own part: anonymous or not) in one
 * transaction per append.
 */
export function createSqliteEventStore(db: SqliteDatabase): AuthEventStore {
  const insert = db.prepare(
    `INSERT INTO keyhold_oauth_events (${COLUMNS}, anonymous) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const pruneOld = db.prepare('DELETE FROM keyhold_oauth_events WHERE tenant = ? AND at < ?');
  const pruneExcess = db.prepare(
    `DELETE FROM keyhold_oauth_events WHERE tenant = ? AND anonymous = ? AND seq <= (
       SELECT seq FROM keyhold_oauth_events WHERE tenant = ? AND anonymous = ? ORDER BY seq DESC LIMIT 1 OFFSET ?)`,
  );
  const lists = {
    both: listStatement(db, 'client_id = ? AND user_id = ?'),
    client: listStatement(db, 'client_id = ? AND ? IS NULL'),
    user: listStatement(db, '? IS NULL AND user_id = ?'),
    none: listStatement(db, '? IS NULL AND ? IS NULL'),
  };
  const append = db.transaction((event: AuthEvent, anonymous: 0 | 1, max: number, notBefore: number) => {
    insert.run(
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
      anonymous,
    );
    pruneOld.run(event.tenant, notBefore);
    pruneExcess.run(event.tenant, anonymous, event.tenant, anonymous, max);
  });
  return {
    async append(event, limits) {
      // Without the anonymous bound (a caller of the earlier contract) every event counts as a subject's.
      const apart = limits.anonymous === true && limits.maxAnonymousEventsPerTenant !== undefined;
      append(
        event,
        apart ? 1 : 0,
        apart ? (limits.maxAnonymousEventsPerTenant as number) : limits.maxEventsPerTenant,
        limits.notBefore,
      );
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
      const rows = lists[shape].all(
        tenant,
        query.clientId ?? null,
        query.userId ?? null,
        query.since ?? 0,
        query.limit,
      ) as Row[];
      return rows.map(eventOf);
    },
  };
}
