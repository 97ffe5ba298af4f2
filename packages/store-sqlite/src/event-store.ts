import type { AuthEvent } from '@keyhold/oauth-core';
import type { AuthEventStore } from '@keyhold/oauth-core/storage';
import { EVENT_COLUMNS, eventBound, eventOf, eventValues, filterShape } from '@keyhold/store-sql-common';
import type { SqliteDatabase } from './database.js';
import { type Row, sqliteColumns } from './row-mapping.js';

/** One statement per filter shape, so a client's or a user's events are read through their own index. */
function listStatement(db: SqliteDatabase, where: string) {
  return db.prepare(
    `SELECT ${EVENT_COLUMNS} FROM keyhold_oauth_events WHERE tenant = ? AND ${where} AND at >= ? ORDER BY seq DESC LIMIT ?`,
  );
}

/**
 * The decision timeline on SQLite (table `keyhold_oauth_events`, oauth migrations 9 and 10): one insert and
 * the tenant's two prunes (age, then count within the event's own part: anonymous or not) in one
 * transaction per append.
 */
export function createSqliteEventStore(db: SqliteDatabase): AuthEventStore {
  const insert = db.prepare(
    `INSERT INTO keyhold_oauth_events (${EVENT_COLUMNS}, anonymous) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
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
    insert.run(...eventValues(event), anonymous);
    pruneOld.run(event.tenant, notBefore);
    pruneExcess.run(event.tenant, anonymous, event.tenant, anonymous, max);
  });
  return {
    async append(event, limits) {
      const { anonymous, max } = eventBound(limits);
      append(event, anonymous, max, limits.notBefore);
    },
    async list(tenant, query) {
      const shape = filterShape(query);
      const rows = lists[shape].all(
        tenant,
        query.clientId ?? null,
        query.userId ?? null,
        query.since ?? 0,
        query.limit,
      ) as Row[];
      return rows.map((row) => eventOf(sqliteColumns, row));
    },
  };
}
