import { randomToken } from '@keyhold/internal';
import type { LoginTransactionStore, UserStore } from '@keyhold/oauth-core/federated';
import { columnNames, createOAuthRowMappers, OAUTH_TABLE_SHAPES } from '@keyhold/store-sql-common';
import type { PostgresPool } from './database.js';
import { migratePostgres } from './migrations.js';
import { OAUTH_POSTGRES_MIGRATIONS } from './oauth-schema.js';
import type { Row } from './row-mapping.js';
import { postgresColumns, postgresWriter } from './row-mapping.js';
import { preparedStatements } from './statements.js';

const oauthRows = createOAuthRowMappers(postgresColumns);

// Columns are named, never `*`: a statement prepared on a pooled connection keeps working when another
// instance's migration adds a column (PostgreSQL refuses a cached plan whose result type changed).
const { loginTransaction } = OAUTH_TABLE_SHAPES;
const LOGIN_TRANSACTION_COLUMNS = columnNames(loginTransaction).join(', ');

/**
 * The federated-login {@link UserStore} on PostgreSQL: identities keyed on (issuer, subject) exactly as the
 * provider gives them. `findOrCreateUser` is one `INSERT … ON CONFLICT DO NOTHING RETURNING`; a concurrent
 * loser waits on the winner's row and then reads it, so all callers get one user id and exactly one sees
 * `created: true`.
 *
 * @example
 * ```ts
 * const users = await createPostgresUserStore(pool);
 * ```
 */
export async function createPostgresUserStore(pool: PostgresPool): Promise<UserStore> {
  await migratePostgres(pool, 'oauth', OAUTH_POSTGRES_MIGRATIONS);
  const statement = preparedStatements(pool, 'oauth');
  const insert = statement(
    'insert_identity',
    `INSERT INTO keyhold_oauth_federated_identities (issuer, subject, user_id, created_at)
     VALUES ($1, $2, $3, $4) ON CONFLICT (issuer, subject) DO NOTHING RETURNING user_id`,
  );
  const find = statement(
    'find_identity',
    'SELECT user_id FROM keyhold_oauth_federated_identities WHERE issuer = $1 AND subject = $2',
  );
  const list = statement(
    'list_identities',
    `SELECT issuer, subject FROM keyhold_oauth_federated_identities WHERE user_id = $1
     ORDER BY created_at, issuer, subject`,
  );
  return {
    async findOrCreateUser({ issuer, subject }, { now }) {
      const created = (await insert([issuer, subject, `usr_${randomToken(16)}`, now])).rows[0];
      if (created !== undefined) return { userId: postgresColumns.text(created, 'user_id'), created: true };
      return {
        userId: postgresColumns.text((await find([issuer, subject])).rows[0] as Row, 'user_id'),
        created: false,
      };
    },
    async findUser({ issuer, subject }) {
      const row = (await find([issuer, subject])).rows[0];
      return row && postgresColumns.text(row, 'user_id');
    },
    async listIdentities(userId) {
      return (await list([userId])).rows.map(oauthRows.federatedIdentity);
    },
  };
}

/**
 * The federated-login {@link LoginTransactionStore} on PostgreSQL. `consume` is one `DELETE … RETURNING`:
 * exactly one caller on any instance takes the transaction; an expired one is deleted and not returned.
 *
 * @example
 * ```ts
 * const transactions = await createPostgresLoginTransactionStore(pool);
 * ```
 */
export async function createPostgresLoginTransactionStore(
  pool: PostgresPool,
): Promise<LoginTransactionStore> {
  await migratePostgres(pool, 'oauth', OAUTH_POSTGRES_MIGRATIONS);
  const statement = preparedStatements(pool, 'oauth');
  const save = statement(
    'save_login_transaction',
    postgresWriter.insert(loginTransaction, { onConflict: 'update' }),
  );
  const consume = statement(
    'consume_login_transaction',
    `DELETE FROM keyhold_oauth_login_transactions WHERE id = $1 RETURNING ${LOGIN_TRANSACTION_COLUMNS}`,
  );
  return {
    async save(t) {
      await save(postgresWriter.values(loginTransaction, t));
    },
    async consume(id, now) {
      const row = (await consume([id])).rows[0];
      if (row === undefined || postgresColumns.integer(row, 'expires_at') <= now) return undefined;
      return oauthRows.loginTransaction(row);
    },
  };
}
