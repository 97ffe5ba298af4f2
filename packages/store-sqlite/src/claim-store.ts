import type { ClaimStore } from '@keyhold/claim-codes';
import { CLAIM_TABLE_SHAPE, CLAIMS_SWEPT_TABLES, createClaimRowMapper } from '@keyhold/store-sql-common';
import { guardedStore } from './availability.js';
import type { SqliteDatabase } from './database.js';
import type { SqliteMigration } from './migrations.js';
import { migrateSqlite } from './migrations.js';
import type { Row } from './row-mapping.js';
import { sqliteColumns, sqliteWriter } from './row-mapping.js';
import type { SqliteSweptTable } from './sweeper.js';

/**
 * The claims component's migrations: one table keyed on the stored-form code, `expires_at` indexed for
 * `deleteExpired`.
 *
 * @example
 * ```ts
 * migrateSqlite(db, 'claims', CLAIMS_SQLITE_MIGRATIONS);
 * ```
 */
export const CLAIMS_SQLITE_MIGRATIONS: readonly SqliteMigration[] = [
  {
    version: 1,
    name: 'create claims table',
    sql: `
CREATE TABLE keyhold_claims (
  code TEXT NOT NULL PRIMARY KEY, scope_dir TEXT NOT NULL, created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL, label TEXT
);
CREATE INDEX keyhold_claims_expires_at ON keyhold_claims (expires_at);
`,
  },
];

/**
 * The claims table, for {@link sweepExpiredSqlite} (the claim service also purges it through
 * `ClaimStore.deleteExpired`).
 *
 * @example
 * ```ts
 * sweepExpiredSqlite(db, CLAIMS_SQLITE_SWEPT_TABLES, Date.now());
 * ```
 */
export const CLAIMS_SQLITE_SWEPT_TABLES: readonly SqliteSweptTable[] = CLAIMS_SWEPT_TABLES;

const toClaim = createClaimRowMapper(sqliteColumns);

/**
 * The claim-codes {@link ClaimStore} on SQLite, after running the `claims` migrations. `insert` is one
 * `INSERT … ON CONFLICT DO NOTHING`, so of several inserts of one code (from any process on the file)
 * exactly one answers `true`; `delete` answers from the row count of one `DELETE`.
 *
 * @example
 * ```ts
 * const claims = createClaims({ store: createSqliteClaimStore(openSqliteDatabase('.keyhold/keyhold.db')) });
 * ```
 */
export function createSqliteClaimStore(db: SqliteDatabase): ClaimStore {
  migrateSqlite(db, 'claims', CLAIMS_SQLITE_MIGRATIONS);
  const insert = db.prepare(sqliteWriter.insert(CLAIM_TABLE_SHAPE, { onConflict: 'nothing' }));
  const get = db.prepare('SELECT * FROM keyhold_claims WHERE code = ?');
  const list = db.prepare('SELECT * FROM keyhold_claims');
  const remove = db.prepare('DELETE FROM keyhold_claims WHERE code = ?');
  const removeExpired = db.prepare('DELETE FROM keyhold_claims WHERE expires_at <= ?');
  return guardedStore({
    async insert(r) {
      return insert.run(...sqliteWriter.values(CLAIM_TABLE_SHAPE, r)).changes === 1;
    },
    async get(code) {
      const row = get.get(code) as Row | undefined;
      return row && toClaim(row);
    },
    async list() {
      return (list.all() as Row[]).map(toClaim);
    },
    async delete(code) {
      return remove.run(code).changes === 1;
    },
    async deleteExpired(now) {
      return removeExpired.run(now).changes;
    },
  });
}
