import { TOKEN_VAULT_SWEPT_TABLES } from '@keyhold/store-sql-common';
import type { PostgresMigration } from './migrations.js';
import type { PostgresSweptTable } from './sweeper.js';

/**
 * The token_vault component's migrations. Grants are keyed on (tenant, user, tool module, provider, scope set)
 * — the scope set is the canonical scopes joined by spaces — so `get` is a B-tree primary-key search and
 * `list` a prefix scan of it; elicitations, pending authorizations and refresh leases are keyed on their
 * id and index `expires_at` for the sweeper.
 *
 * @example
 * ```ts
 * await migratePostgres(pool, 'token_vault', TOKEN_VAULT_POSTGRES_MIGRATIONS);
 * ```
 */
export const TOKEN_VAULT_POSTGRES_MIGRATIONS: readonly PostgresMigration[] = [
  {
    version: 1,
    name: 'create token vault tables',
    sql: `
CREATE TABLE keyhold_vault_grants (
  tenant_id TEXT NOT NULL, user_id TEXT NOT NULL, photon_id TEXT NOT NULL, provider TEXT NOT NULL,
  scopes TEXT NOT NULL, status TEXT NOT NULL, access_token_encrypted TEXT NOT NULL,
  refresh_token_encrypted TEXT, token_expires_at BIGINT, granted_scopes TEXT[],
  created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL, version INTEGER NOT NULL,
  PRIMARY KEY (tenant_id, user_id, photon_id, provider, scopes)
);
CREATE TABLE keyhold_vault_elicitations (
  elicitation_id TEXT NOT NULL PRIMARY KEY, tenant_id TEXT NOT NULL, user_id TEXT NOT NULL,
  photon_id TEXT NOT NULL, provider TEXT NOT NULL, scopes TEXT[] NOT NULL, session_id TEXT NOT NULL,
  message TEXT NOT NULL, created_at BIGINT NOT NULL, expires_at BIGINT NOT NULL
);
CREATE INDEX keyhold_vault_elicitations_expires_at ON keyhold_vault_elicitations (expires_at);
CREATE TABLE keyhold_vault_pending_authorizations (
  nonce_hash TEXT NOT NULL PRIMARY KEY, elicitation_id TEXT NOT NULL, tenant_id TEXT NOT NULL,
  user_id TEXT NOT NULL, photon_id TEXT NOT NULL, provider TEXT NOT NULL, scopes TEXT[] NOT NULL,
  session_id TEXT NOT NULL, code_verifier TEXT NOT NULL, created_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL
);
CREATE INDEX keyhold_vault_pending_authorizations_expires_at ON keyhold_vault_pending_authorizations (expires_at);
CREATE TABLE keyhold_vault_refresh_leases (
  lease_key TEXT NOT NULL PRIMARY KEY, token TEXT NOT NULL, expires_at BIGINT NOT NULL
);
CREATE INDEX keyhold_vault_refresh_leases_expires_at ON keyhold_vault_refresh_leases (expires_at);
`,
  },
  {
    // Issue 15: `photonId` became `toolModuleId`, and the broker no longer knows MCP sessions (the state sent
    // to providers is opaque; clients retry after authorizing). Renaming a column keeps its data, and the
    // grants' primary key follows the renamed column (no index or constraint is named after it). No index
    // covers session_id, so dropping it needs nothing else.
    version: 2,
    name: 'photon_id becomes tool_module_id; session_id dropped',
    sql: `
ALTER TABLE keyhold_vault_grants RENAME COLUMN photon_id TO tool_module_id;
ALTER TABLE keyhold_vault_elicitations RENAME COLUMN photon_id TO tool_module_id;
ALTER TABLE keyhold_vault_elicitations DROP COLUMN session_id;
ALTER TABLE keyhold_vault_pending_authorizations RENAME COLUMN photon_id TO tool_module_id;
ALTER TABLE keyhold_vault_pending_authorizations DROP COLUMN session_id;
`,
  },
  {
    // Issue 29: each put bounds the user's pending rows (keeps the newest few), which looks them up by user.
    version: 3,
    name: 'pending rows indexed by user for the per-user bound',
    sql: `
CREATE INDEX keyhold_vault_elicitations_user ON keyhold_vault_elicitations (tenant_id, user_id, created_at);
CREATE INDEX keyhold_vault_pending_authorizations_user ON keyhold_vault_pending_authorizations (tenant_id, user_id, created_at);
`,
  },
];

/**
 * The token_vault tables the expiry sweeper may prune. Grants are never swept: an expired access token is
 * refreshed, not forgotten.
 *
 * @example
 * ```ts
 * startPostgresExpirySweeper(pool, { tables: TOKEN_VAULT_POSTGRES_SWEPT_TABLES });
 * ```
 */
export const TOKEN_VAULT_POSTGRES_SWEPT_TABLES: readonly PostgresSweptTable[] = TOKEN_VAULT_SWEPT_TABLES;
