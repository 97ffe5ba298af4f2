import { randomToken } from '@keyhold/internal';
import { columnNames, createTokenVaultRowMappers, TOKEN_VAULT_TABLE_SHAPES } from '@keyhold/store-sql-common';
import type {
  GrantStore,
  ProviderAuthorizationStore,
  RefreshLock,
  TokenVaultStorage,
} from '@keyhold/token-vault';
import type { PostgresPool } from './database.js';
import { migratePostgres } from './migrations.js';
import type { Row } from './row-mapping.js';
import { postgresColumns, postgresWriter } from './row-mapping.js';
import { preparedStatements } from './statements.js';
import { TOKEN_VAULT_POSTGRES_MIGRATIONS } from './token-vault-schema.js';

// Columns are named, never `*`: a statement prepared on a pooled connection keeps working when another
// instance's migration adds a column (PostgreSQL refuses a cached plan whose result type changed).
const { grant: grantShape, elicitation, pendingAuthorization } = TOKEN_VAULT_TABLE_SHAPES;
const GRANT_COLUMNS = [...columnNames(grantShape), 'version'].join(', ');
// Deletes a user's records of one table but the one just put ($3) and the newest $5 other live ones at $4:
// the per-user bound of the pending store (ties on created_at fall back to the id).
function trimPerUser(table: string, id: string): string {
  return `DELETE FROM ${table} WHERE tenant_id = $1 AND user_id = $2 AND ${id} <> $3 AND (expires_at <= $4 OR ${id} NOT IN (SELECT ${id} FROM ${table} WHERE tenant_id = $1 AND user_id = $2 AND ${id} <> $3 AND expires_at > $4 ORDER BY created_at DESC, ${id} DESC LIMIT $5))`;
}

const ELICITATION_COLUMNS = columnNames(elicitation).join(', ');
const PENDING_AUTHORIZATION_COLUMNS = columnNames(pendingAuthorization).join(', ');

const vaultRows = createTokenVaultRowMappers(postgresColumns);

// $1…$5: the key; $6…$12: the rest of the grant (the shape's column order).
const KEY_MATCH = 'tenant_id = $1 AND user_id = $2 AND tool_module_id = $3 AND provider = $4 AND scopes = $5';

/**
 * The token-vault {@link GrantStore} on PostgreSQL, after running the `token_vault` migrations. `put` is
 * one upsert that bumps `version`; `compareAndSwap` is one `UPDATE … WHERE version = $n RETURNING …`, so of
 * several writers on any number of instances holding the same version exactly one succeeds.
 *
 * @example
 * ```ts
 * const grants = await createPostgresGrantStore(pool);
 * ```
 */
export async function createPostgresGrantStore(pool: PostgresPool): Promise<GrantStore> {
  await migratePostgres(pool, 'token_vault', TOKEN_VAULT_POSTGRES_MIGRATIONS);
  const statement = preparedStatements(pool, 'vault');
  const get = statement('get_grant', `SELECT ${GRANT_COLUMNS} FROM keyhold_vault_grants WHERE ${KEY_MATCH}`);
  const put = statement(
    'put_grant',
    `INSERT INTO keyhold_vault_grants (tenant_id, user_id, tool_module_id, provider, scopes, status,
      access_token_encrypted, refresh_token_encrypted, token_expires_at, granted_scopes, created_at,
      updated_at, version)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, 1)
     ON CONFLICT (tenant_id, user_id, tool_module_id, provider, scopes) DO UPDATE SET
      status = excluded.status, access_token_encrypted = excluded.access_token_encrypted,
      refresh_token_encrypted = excluded.refresh_token_encrypted, token_expires_at = excluded.token_expires_at,
      granted_scopes = excluded.granted_scopes, created_at = excluded.created_at,
      updated_at = excluded.updated_at, version = keyhold_vault_grants.version + 1
     RETURNING ${GRANT_COLUMNS}`,
  );
  const swap = statement(
    'swap_grant',
    `UPDATE keyhold_vault_grants SET status = $6, access_token_encrypted = $7, refresh_token_encrypted = $8,
      token_expires_at = $9, granted_scopes = $10, created_at = $11, updated_at = $12, version = version + 1
     WHERE ${KEY_MATCH} AND version = $13 RETURNING ${GRANT_COLUMNS}`,
  );
  const remove = statement('delete_grant', `DELETE FROM keyhold_vault_grants WHERE ${KEY_MATCH}`);
  const listTenant = statement(
    'list_tenant',
    `SELECT ${GRANT_COLUMNS} FROM keyhold_vault_grants WHERE tenant_id = $1`,
  );
  const listUser = statement(
    'list_user',
    `SELECT ${GRANT_COLUMNS} FROM keyhold_vault_grants WHERE tenant_id = $1 AND user_id = $2`,
  );
  return {
    async get(key) {
      const row = (await get(postgresWriter.key(grantShape, key))).rows[0];
      return row && vaultRows.grant(row);
    },
    async put(grant) {
      return vaultRows.grant((await put(postgresWriter.values(grantShape, grant))).rows[0] as Row);
    },
    async compareAndSwap(grant, expectedVersion) {
      const row = (await swap([...postgresWriter.values(grantShape, grant), expectedVersion])).rows[0];
      return row && vaultRows.grant(row);
    },
    async delete(key) {
      return (await remove(postgresWriter.key(grantShape, key))).rowCount === 1;
    },
    async list({ tenantId, userId }) {
      const { rows } =
        userId === undefined ? await listTenant([tenantId]) : await listUser([tenantId, userId]);
      return rows.map(vaultRows.grant);
    },
  };
}

/**
 * The token-vault {@link ProviderAuthorizationStore} on PostgreSQL. `consumeAuthorization` is one
 * `DELETE … RETURNING`: exactly one caller on any instance takes the record, and an expired one is deleted
 * and not returned.
 *
 * @example
 * ```ts
 * const pending = await createPostgresTokenVaultPendingStore(pool);
 * ```
 */
export async function createPostgresTokenVaultPendingStore(
  pool: PostgresPool,
): Promise<ProviderAuthorizationStore> {
  await migratePostgres(pool, 'token_vault', TOKEN_VAULT_POSTGRES_MIGRATIONS);
  const statement = preparedStatements(pool, 'vault');
  const putElicitation = statement(
    'put_elicitation',
    postgresWriter.insert(elicitation, { onConflict: 'update' }),
  );
  const getElicitation = statement(
    'get_elicitation',
    `SELECT ${ELICITATION_COLUMNS} FROM keyhold_vault_elicitations WHERE elicitation_id = $1 AND expires_at > $2`,
  );
  const deleteElicitation = statement(
    'delete_elicitation',
    'DELETE FROM keyhold_vault_elicitations WHERE elicitation_id = $1',
  );
  const putAuthorization = statement(
    'put_authorization',
    postgresWriter.insert(pendingAuthorization, { onConflict: 'update' }),
  );
  const trimElicitations = statement(
    'trim_elicitations',
    trimPerUser('keyhold_vault_elicitations', 'elicitation_id'),
  );
  const trimAuthorizations = statement(
    'trim_authorizations',
    trimPerUser('keyhold_vault_pending_authorizations', 'nonce_hash'),
  );
  const consumeAuthorization = statement(
    'consume_authorization',
    `DELETE FROM keyhold_vault_pending_authorizations WHERE nonce_hash = $1 RETURNING ${PENDING_AUTHORIZATION_COLUMNS}`,
  );
  return {
    async putElicitation(r, maxPerUser) {
      await putElicitation(postgresWriter.values(elicitation, r));
      await trimElicitations([r.tenantId, r.userId, r.elicitationId, r.createdAt, maxPerUser - 1]);
    },
    async getElicitation(elicitationId, now) {
      const row = (await getElicitation([elicitationId, now])).rows[0];
      return row && vaultRows.elicitation(row);
    },
    async deleteElicitation(elicitationId) {
      await deleteElicitation([elicitationId]);
    },
    async putAuthorization(r, maxPerUser) {
      await putAuthorization(postgresWriter.values(pendingAuthorization, r));
      await trimAuthorizations([r.tenantId, r.userId, r.nonceHash, r.createdAt, maxPerUser - 1]);
    },
    async consumeAuthorization(nonceHash, now) {
      const row = (await consumeAuthorization([nonceHash])).rows[0];
      if (row === undefined || postgresColumns.integer(row, 'expires_at') <= now) return undefined;
      return vaultRows.pendingAuthorization(row);
    },
  };
}

/**
 * The token-vault {@link RefreshLock} as a lease row: `acquire` is one `INSERT … ON CONFLICT DO UPDATE …
 * WHERE expires_at <= now`, which takes the row only when it is absent or its lease expired at the caller's
 * `now` (a concurrent inserter waits on the row and then sees the winner's live lease); `release` deletes
 * it only for the holder's token. Use it when the instances share PostgreSQL but not Redis.
 *
 * @example
 * ```ts
 * const refreshLock = await createPostgresRefreshLock(pool);
 * ```
 */
export async function createPostgresRefreshLock(pool: PostgresPool): Promise<RefreshLock> {
  await migratePostgres(pool, 'token_vault', TOKEN_VAULT_POSTGRES_MIGRATIONS);
  const statement = preparedStatements(pool, 'vault');
  const acquire = statement(
    'acquire_lease',
    `INSERT INTO keyhold_vault_refresh_leases (lease_key, token, expires_at) VALUES ($1, $2, $3)
     ON CONFLICT (lease_key) DO UPDATE SET token = excluded.token, expires_at = excluded.expires_at
     WHERE keyhold_vault_refresh_leases.expires_at <= $4`,
  );
  const release = statement(
    'release_lease',
    'DELETE FROM keyhold_vault_refresh_leases WHERE lease_key = $1 AND token = $2',
  );
  return {
    async acquire(key, now, expiresAt) {
      const token = randomToken(16);
      return (await acquire([key, token, expiresAt, now])).rowCount === 1 ? token : undefined;
    },
    async release(key, token) {
      return (await release([key, token])).rowCount === 1;
    },
  };
}

/**
 * All of a token broker's storage on PostgreSQL, after running the `token_vault` migrations. Pair it with
 * `startPostgresExpirySweeper(pool, { tables: TOKEN_VAULT_POSTGRES_SWEPT_TABLES })`.
 *
 * @example
 * ```ts
 * import { createTokenBroker } from '@keyhold/token-vault';
 *
 * const broker = createTokenBroker({ baseUrl, vault, providers, storage: await createPostgresTokenVaultStorage(pool) });
 * ```
 */
export async function createPostgresTokenVaultStorage(pool: PostgresPool): Promise<TokenVaultStorage> {
  return {
    grants: await createPostgresGrantStore(pool),
    pending: await createPostgresTokenVaultPendingStore(pool),
    refreshLock: await createPostgresRefreshLock(pool),
  };
}
