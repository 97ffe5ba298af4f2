import { randomToken } from '@keyhold/internal';
import { createTokenVaultRowMappers, TOKEN_VAULT_TABLE_SHAPES } from '@keyhold/store-sql-common';
import type {
  GrantStore,
  ProviderAuthorizationStore,
  RefreshLock,
  TokenVaultStorage,
} from '@keyhold/token-vault';
import { guardedStore } from './availability.js';
import type { SqliteDatabase } from './database.js';
import { migrateSqlite } from './migrations.js';
import type { Row } from './row-mapping.js';
import { sqliteColumns, sqliteWriter } from './row-mapping.js';
import { TOKEN_VAULT_SQLITE_MIGRATIONS } from './token-vault-schema.js';

const vaultRows = createTokenVaultRowMappers(sqliteColumns);

const { grant: grantShape, elicitation, pendingAuthorization } = TOKEN_VAULT_TABLE_SHAPES;
const grantKeyCount = grantShape.key.length;

// Deletes a user's records of one table but the one just put (?3) and the newest ?5 other live ones at ?4:
// the per-user bound of the pending store (ties on created_at fall back to the id).
function trimPerUser(table: string, id: string): string {
  return `DELETE FROM ${table} WHERE tenant_id = ?1 AND user_id = ?2 AND ${id} <> ?3 AND (expires_at <= ?4 OR ${id} NOT IN (SELECT ${id} FROM ${table} WHERE tenant_id = ?1 AND user_id = ?2 AND ${id} <> ?3 AND expires_at > ?4 ORDER BY created_at DESC, ${id} DESC LIMIT ?5))`;
}

const KEY_MATCH = 'tenant_id = ? AND user_id = ? AND tool_module_id = ? AND provider = ? AND scopes = ?';

/**
 * The token-vault {@link GrantStore} on SQLite. `put` is one upsert that bumps `version`;
 * `compareAndSwap` is one `UPDATE … WHERE version = ? RETURNING *`, so of several writers holding the same
 * version (in any process on the file) exactly one succeeds.
 *
 * @example
 * ```ts
 * const grants = createSqliteGrantStore(openSqliteDatabase('.keyhold/keyhold.db'));
 * ```
 */
export function createSqliteGrantStore(db: SqliteDatabase): GrantStore {
  migrateSqlite(db, 'token_vault', TOKEN_VAULT_SQLITE_MIGRATIONS);
  const get = db.prepare(`SELECT * FROM keyhold_vault_grants WHERE ${KEY_MATCH}`);
  const put = db.prepare(
    `INSERT INTO keyhold_vault_grants (tenant_id, user_id, tool_module_id, provider, scopes, status,
      access_token_encrypted, refresh_token_encrypted, token_expires_at, granted_scopes, created_at,
      updated_at, version)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1)
     ON CONFLICT (tenant_id, user_id, tool_module_id, provider, scopes) DO UPDATE SET
      status = excluded.status, access_token_encrypted = excluded.access_token_encrypted,
      refresh_token_encrypted = excluded.refresh_token_encrypted, token_expires_at = excluded.token_expires_at,
      granted_scopes = excluded.granted_scopes, created_at = excluded.created_at,
      updated_at = excluded.updated_at, version = keyhold_vault_grants.version + 1
     RETURNING *`,
  );
  const swap = db.prepare(
    `UPDATE keyhold_vault_grants SET status = ?, access_token_encrypted = ?, refresh_token_encrypted = ?,
      token_expires_at = ?, granted_scopes = ?, created_at = ?, updated_at = ?, version = version + 1
     WHERE ${KEY_MATCH} AND version = ? RETURNING *`,
  );
  const remove = db.prepare(`DELETE FROM keyhold_vault_grants WHERE ${KEY_MATCH}`);
  const listTenant = db.prepare('SELECT * FROM keyhold_vault_grants WHERE tenant_id = ?');
  const listUser = db.prepare('SELECT * FROM keyhold_vault_grants WHERE tenant_id = ? AND user_id = ?');
  return guardedStore({
    async get(key) {
      const row = get.get(...sqliteWriter.key(grantShape, key)) as Row | undefined;
      return row && vaultRows.grant(row);
    },
    async put(grant) {
      return vaultRows.grant(put.get(...sqliteWriter.values(grantShape, grant)) as Row);
    },
    async compareAndSwap(grant, expectedVersion) {
      // The SET values come first here: SQLite's `?` placeholders are numbered in statement order.
      const values = sqliteWriter.values(grantShape, grant);
      const row = swap.get(
        ...values.slice(grantKeyCount),
        ...values.slice(0, grantKeyCount),
        expectedVersion,
      ) as Row | undefined;
      return row && vaultRows.grant(row);
    },
    async delete(key) {
      return remove.run(...sqliteWriter.key(grantShape, key)).changes === 1;
    },
    async list({ tenantId, userId }) {
      const rows = (
        userId === undefined ? listTenant.all(tenantId) : listUser.all(tenantId, userId)
      ) as Row[];
      return rows.map(vaultRows.grant);
    },
  });
}

/**
 * The token-vault {@link ProviderAuthorizationStore} on SQLite. `consumeAuthorization` is one
 * `DELETE … RETURNING`: exactly one caller takes the record, and an expired one is deleted and not returned.
 *
 * @example
 * ```ts
 * const pending = createSqliteTokenVaultPendingStore(db);
 * ```
 */
export function createSqliteTokenVaultPendingStore(db: SqliteDatabase): ProviderAuthorizationStore {
  migrateSqlite(db, 'token_vault', TOKEN_VAULT_SQLITE_MIGRATIONS);
  const putElicitation = db.prepare(sqliteWriter.insert(elicitation, { onConflict: 'update' }));
  const getElicitation = db.prepare(
    'SELECT * FROM keyhold_vault_elicitations WHERE elicitation_id = ? AND expires_at > ?',
  );
  const deleteElicitation = db.prepare('DELETE FROM keyhold_vault_elicitations WHERE elicitation_id = ?');
  const putAuthorization = db.prepare(sqliteWriter.insert(pendingAuthorization, { onConflict: 'update' }));
  const trimElicitations = db.prepare(trimPerUser('keyhold_vault_elicitations', 'elicitation_id'));
  const trimAuthorizations = db.prepare(trimPerUser('keyhold_vault_pending_authorizations', 'nonce_hash'));
  const consumeAuthorization = db.prepare(
    'DELETE FROM keyhold_vault_pending_authorizations WHERE nonce_hash = ? RETURNING *',
  );
  return guardedStore({
    async putElicitation(r, maxPerUser) {
      db.transaction(() => {
        putElicitation.run(...sqliteWriter.values(elicitation, r));
        trimElicitations.run(r.tenantId, r.userId, r.elicitationId, r.createdAt, maxPerUser - 1);
      })();
    },
    async getElicitation(elicitationId, now) {
      const row = getElicitation.get(elicitationId, now) as Row | undefined;
      return row && vaultRows.elicitation(row);
    },
    async deleteElicitation(elicitationId) {
      deleteElicitation.run(elicitationId);
    },
    async putAuthorization(r, maxPerUser) {
      db.transaction(() => {
        putAuthorization.run(...sqliteWriter.values(pendingAuthorization, r));
        trimAuthorizations.run(r.tenantId, r.userId, r.nonceHash, r.createdAt, maxPerUser - 1);
      })();
    },
    async consumeAuthorization(nonceHash, now) {
      const row = consumeAuthorization.get(nonceHash) as Row | undefined;
      if (row === undefined || sqliteColumns.integer(row, 'expires_at') <= now) return undefined;
      return vaultRows.pendingAuthorization(row);
    },
  });
}

/**
 * The token-vault {@link RefreshLock} as a lease row: `acquire` is one conditional upsert that takes the
 * row only when it is absent or its lease expired at `now`; `release` deletes it only for the holder's
 * token. Enough for several processes on one machine sharing the file.
 *
 * @example
 * ```ts
 * const refreshLock = createSqliteRefreshLock(db);
 * ```
 */
export function createSqliteRefreshLock(db: SqliteDatabase): RefreshLock {
  migrateSqlite(db, 'token_vault', TOKEN_VAULT_SQLITE_MIGRATIONS);
  const acquire = db.prepare(
    `INSERT INTO keyhold_vault_refresh_leases (lease_key, token, expires_at) VALUES (?, ?, ?)
     ON CONFLICT (lease_key) DO UPDATE SET token = excluded.token, expires_at = excluded.expires_at
     WHERE keyhold_vault_refresh_leases.expires_at <= ?`,
  );
  const release = db.prepare('DELETE FROM keyhold_vault_refresh_leases WHERE lease_key = ? AND token = ?');
  return guardedStore({
    async acquire(key, now, expiresAt) {
      const token = randomToken(16);
      return acquire.run(key, token, expiresAt, now).changes === 1 ? token : undefined;
    },
    async release(key, token) {
      return release.run(key, token).changes === 1;
    },
  });
}

/**
 * All of a token broker's storage on one SQLite database, after running the `token_vault` migrations.
 *
 * @example
 * ```ts
 * import { createTokenBroker } from '@keyhold/token-vault';
 *
 * const broker = createTokenBroker({ baseUrl, vault, providers, storage: createSqliteTokenVaultStorage(db) });
 * ```
 */
export function createSqliteTokenVaultStorage(db: SqliteDatabase): TokenVaultStorage {
  return {
    grants: createSqliteGrantStore(db),
    pending: createSqliteTokenVaultPendingStore(db),
    refreshLock: createSqliteRefreshLock(db),
  };
}
