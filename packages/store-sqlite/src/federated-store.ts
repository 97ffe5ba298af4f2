import { randomToken } from '@keyhold/internal';
import type { LoginTransactionStore, UserStore } from '@keyhold/oauth-core/federated';
import { createOAuthRowMappers, OAUTH_TABLE_SHAPES } from '@keyhold/store-sql-common';
import { guardedStore } from './availability.js';
import type { SqliteDatabase } from './database.js';
import { migrateSqlite } from './migrations.js';
import { OAUTH_SQLITE_MIGRATIONS } from './oauth-schema.js';
import type { Row } from './row-mapping.js';
import { sqliteColumns, sqliteWriter } from './row-mapping.js';

const oauthRows = createOAuthRowMappers(sqliteColumns);
const { loginTransaction } = OAUTH_TABLE_SHAPES;

/**
 * The federated-login {@link UserStore} on SQLite: identities keyed on (issuer, subject) exactly as the
 * provider gives them. `findOrCreateUser` is one `INSERT … ON CONFLICT DO NOTHING RETURNING`, so of any
 * number of first logins of one identity exactly one provisions the user (`usr_` + 128 random bits).
 *
 * @example
 * ```ts
 * const users = createSqliteUserStore(db);
 * ```
 */
export function createSqliteUserStore(db: SqliteDatabase): UserStore {
  migrateSqlite(db, 'oauth', OAUTH_SQLITE_MIGRATIONS);
  const insert = db.prepare(
    `INSERT INTO keyhold_oauth_federated_identities (issuer, subject, user_id, created_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (issuer, subject) DO NOTHING RETURNING user_id`,
  );
  const find = db.prepare(
    'SELECT user_id FROM keyhold_oauth_federated_identities WHERE issuer = ? AND subject = ?',
  );
  const list = db.prepare(
    `SELECT issuer, subject FROM keyhold_oauth_federated_identities WHERE user_id = ?
     ORDER BY created_at, rowid`,
  );
  return guardedStore({
    async findOrCreateUser({ issuer, subject }, { now }) {
      const created = insert.get(issuer, subject, `usr_${randomToken(16)}`, now) as Row | undefined;
      if (created !== undefined) return { userId: sqliteColumns.text(created, 'user_id'), created: true };
      return { userId: sqliteColumns.text(find.get(issuer, subject) as Row, 'user_id'), created: false };
    },
    async findUser({ issuer, subject }) {
      const row = find.get(issuer, subject) as Row | undefined;
      return row && sqliteColumns.text(row, 'user_id');
    },
    async listIdentities(userId) {
      return (list.all(userId) as Row[]).map(oauthRows.federatedIdentity);
    },
  });
}

/**
 * The federated-login {@link LoginTransactionStore} on SQLite. `consume` is one `DELETE … RETURNING`:
 * exactly one caller takes the transaction, and an expired one is deleted and not returned.
 *
 * @example
 * ```ts
 * const transactions = createSqliteLoginTransactionStore(db);
 * ```
 */
export function createSqliteLoginTransactionStore(db: SqliteDatabase): LoginTransactionStore {
  migrateSqlite(db, 'oauth', OAUTH_SQLITE_MIGRATIONS);
  const save = db.prepare(sqliteWriter.insert(loginTransaction, { onConflict: 'update' }));
  const consume = db.prepare('DELETE FROM keyhold_oauth_login_transactions WHERE id = ? RETURNING *');
  return guardedStore({
    async save(t) {
      save.run(...sqliteWriter.values(loginTransaction, t));
    },
    async consume(id, now) {
      const row = consume.get(id) as Row | undefined;
      if (row === undefined || sqliteColumns.integer(row, 'expires_at') <= now) return undefined;
      return oauthRows.loginTransaction(row);
    },
  });
}
