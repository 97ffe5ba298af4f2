import type { ClaimStore } from '@keyhold/claim-codes';
import {
  CLAIM_TABLE_SHAPE,
  CLAIMS_SWEPT_TABLES,
  columnNames,
  createClaimRowMapper,
} from '@keyhold/store-sql-common';
import type { PostgresPool } from './database.js';
import type { PostgresMigration } from './migrations.js';
import { migratePostgres } from './migrations.js';
import { postgresColumns, postgresWriter } from './row-mapping.js';
import { preparedStatements } from './statements.js';
import type { PostgresSweptTable } from './sweeper.js';

// Columns are named, never `*`: a statement prepared on a pooled connection keeps working when another
// instance's migration adds a column (PostgreSQL refuses a cached plan whose result type changed).
const CLAIM_COLUMNS = columnNames(CLAIM_TABLE_SHAPE).join(', ');

/**
 * The claims component's migrations: one table keyed on the stored-form code, `expires_at` indexed for
 * `deleteExpired` and the sweeper.
 *
 * @example
 * ```ts
 * await migratePostgres(pool, 'claims', CLAIMS_POSTGRES_MIGRATIONS);
 * ```
 */
export const CLAIMS_POSTGRES_MIGRATIONS: readonly PostgresMigration[] = [
  {
    version: 1,
    name: 'create claims table',
    sql: `
CREATE TABLE keyhold_claims (
  code TEXT NOT NULL PRIMARY KEY, scope_dir TEXT NOT NULL, created_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL, label TEXT
);
CREATE INDEX keyhold_claims_expires_at ON keyhold_claims (expires_at);
`,
  },
];

/**
 * The claims tables the expiry sweeper may prune.
 *
 * @example
 * ```ts
 * startPostgresExpirySweeper(pool, { tables: [...OAUTH_POSTGRES_SWEPT_TABLES, ...CLAIMS_POSTGRES_SWEPT_TABLES] });
 * ```
 */
export const CLAIMS_POSTGRES_SWEPT_TABLES: readonly PostgresSweptTable[] = CLAIMS_SWEPT_TABLES;

const toClaim = createClaimRowMapper(postgresColumns);

/**
 * The claim-codes {@link ClaimStore} on PostgreSQL, after running the `claims` migrations. `insert` is one
 * `INSERT … ON CONFLICT DO NOTHING` and `delete` one `DELETE`, so under any concurrency across instances
 * exactly one caller answers `true`.
 *
 * @example
 * ```ts
 * const claims = createClaims({ store: await createPostgresClaimStore(pool) });
 * ```
 */
export async function createPostgresClaimStore(pool: PostgresPool): Promise<ClaimStore> {
  await migratePostgres(pool, 'claims', CLAIMS_POSTGRES_MIGRATIONS);
  const statement = preparedStatements(pool, 'claims');
  const insert = statement('insert', postgresWriter.insert(CLAIM_TABLE_SHAPE, { onConflict: 'nothing' }));
  const get = statement('get', `SELECT ${CLAIM_COLUMNS} FROM keyhold_claims WHERE code = $1`);
  const list = statement('list', `SELECT ${CLAIM_COLUMNS} FROM keyhold_claims`);
  const remove = statement('delete', 'DELETE FROM keyhold_claims WHERE code = $1');
  const removeExpired = statement('delete_expired', 'DELETE FROM keyhold_claims WHERE expires_at <= $1');
  return {
    async insert(r) {
      return (await insert(postgresWriter.values(CLAIM_TABLE_SHAPE, r))).rowCount === 1;
    },
    async get(code) {
      const row = (await get([code])).rows[0];
      return row && toClaim(row);
    },
    async list() {
      return (await list([])).rows.map(toClaim);
    },
    async delete(code) {
      return (await remove([code])).rowCount === 1;
    },
    async deleteExpired(now) {
      return (await removeExpired([now])).rowCount;
    },
  };
}
