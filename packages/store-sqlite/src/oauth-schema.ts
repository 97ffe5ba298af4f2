import { OAUTH_SWEPT_TABLES } from '@keyhold/store-sql-common';
import type { SqliteMigration } from './migrations.js';
import { ONCE_SQLITE_TABLE_SQL } from './once-store.js';
import type { SqliteSweptTable } from './sweeper.js';

/**
 * The oauth component's migrations. Every table is keyed on `(tenant, id)` so each lookup is a primary-key
 * search; `expires_at` is indexed for the sweep. Arrays are JSON text; consent scopes are the sorted scope
 * set joined by spaces (scope tokens cannot contain a space), which is also the consent's key.
 *
 * @example
 * ```ts
 * migrateSqlite(db, 'oauth', OAUTH_SQLITE_MIGRATIONS);
 * ```
 */
export const OAUTH_SQLITE_MIGRATIONS: readonly SqliteMigration[] = [
  {
    version: 1,
    name: 'create oauth tables',
    sql: `
CREATE TABLE keyhold_oauth_clients (
  tenant TEXT NOT NULL, client_id TEXT NOT NULL, client_name TEXT,
  redirect_uris TEXT NOT NULL, grant_types TEXT NOT NULL, response_types TEXT NOT NULL,
  token_endpoint_auth_method TEXT NOT NULL, client_secret_hash TEXT, scope TEXT,
  client_uri TEXT, logo_uri TEXT, created_at INTEGER NOT NULL,
  PRIMARY KEY (tenant, client_id)
);
CREATE TABLE keyhold_oauth_codes (
  tenant TEXT NOT NULL, code_hash TEXT NOT NULL, client_id TEXT NOT NULL, client_type TEXT NOT NULL,
  user_id TEXT NOT NULL, redirect_uri TEXT NOT NULL, code_challenge TEXT NOT NULL, scope TEXT NOT NULL,
  resources TEXT NOT NULL, nonce TEXT, auth_time INTEGER NOT NULL, expires_at INTEGER NOT NULL,
  PRIMARY KEY (tenant, code_hash)
);
CREATE INDEX keyhold_oauth_codes_expires_at ON keyhold_oauth_codes (expires_at);
CREATE TABLE keyhold_oauth_pending (
  tenant TEXT NOT NULL, id TEXT NOT NULL, user_id TEXT NOT NULL, client_id TEXT NOT NULL,
  client_type TEXT NOT NULL, client_name TEXT NOT NULL, client_host TEXT NOT NULL,
  redirect_uri TEXT NOT NULL, code_challenge TEXT NOT NULL, scope TEXT NOT NULL, resources TEXT NOT NULL,
  state TEXT, nonce TEXT, expires_at INTEGER NOT NULL,
  PRIMARY KEY (tenant, id)
);
CREATE INDEX keyhold_oauth_pending_expires_at ON keyhold_oauth_pending (expires_at);
CREATE TABLE keyhold_oauth_refresh_tokens (
  tenant TEXT NOT NULL, token_hash TEXT NOT NULL, family_id TEXT NOT NULL, client_id TEXT NOT NULL,
  client_type TEXT NOT NULL, user_id TEXT NOT NULL, scope TEXT NOT NULL, resources TEXT NOT NULL,
  created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL, consumed_at INTEGER, revoked_at INTEGER,
  PRIMARY KEY (tenant, token_hash)
);
CREATE INDEX keyhold_oauth_refresh_tokens_family ON keyhold_oauth_refresh_tokens (tenant, family_id);
CREATE INDEX keyhold_oauth_refresh_tokens_expires_at ON keyhold_oauth_refresh_tokens (expires_at);
CREATE TABLE keyhold_oauth_consents (
  tenant TEXT NOT NULL, user_id TEXT NOT NULL, client_id TEXT NOT NULL, scopes TEXT NOT NULL,
  granted_at INTEGER NOT NULL, expires_at INTEGER NOT NULL,
  PRIMARY KEY (tenant, user_id, client_id, scopes)
);
CREATE INDEX keyhold_oauth_consents_expires_at ON keyhold_oauth_consents (expires_at);
CREATE TABLE keyhold_oauth_revoked_access_tokens (
  tenant TEXT NOT NULL, jti TEXT NOT NULL, expires_at INTEGER NOT NULL,
  PRIMARY KEY (tenant, jti)
);
CREATE INDEX keyhold_oauth_revoked_access_tokens_expires_at ON keyhold_oauth_revoked_access_tokens (expires_at);
`,
  },
  {
    version: 2,
    name: 'create federated login tables',
    sql: `
CREATE TABLE keyhold_oauth_federated_identities (
  issuer TEXT NOT NULL, subject TEXT NOT NULL, user_id TEXT NOT NULL, created_at INTEGER NOT NULL,
  PRIMARY KEY (issuer, subject)
);
CREATE INDEX keyhold_oauth_federated_identities_user ON keyhold_oauth_federated_identities (user_id, created_at);
CREATE TABLE keyhold_oauth_login_transactions (
  id TEXT NOT NULL PRIMARY KEY, provider_id TEXT NOT NULL, code_verifier TEXT NOT NULL, nonce TEXT NOT NULL,
  return_to TEXT, expires_at INTEGER NOT NULL
);
CREATE INDEX keyhold_oauth_login_transactions_expires_at ON keyhold_oauth_login_transactions (expires_at);
`,
  },
  {
    version: 3,
    name: 'client expiry and policy; codes kept once consumed',
    // Dynamic clients expire when unused (NULL: never, e.g. provisioned clients and clients registered
    // before this version); codes keep the ids of what they issue so a replay can revoke it.
    sql: `
ALTER TABLE keyhold_oauth_clients ADD COLUMN registration TEXT;
ALTER TABLE keyhold_oauth_clients ADD COLUMN expires_at INTEGER;
ALTER TABLE keyhold_oauth_clients ADD COLUMN token_exchange_audiences TEXT;
CREATE INDEX keyhold_oauth_clients_expires_at ON keyhold_oauth_clients (expires_at);
ALTER TABLE keyhold_oauth_codes ADD COLUMN family_id TEXT;
ALTER TABLE keyhold_oauth_codes ADD COLUMN access_token_jti TEXT;
ALTER TABLE keyhold_oauth_codes ADD COLUMN consumed_at INTEGER;
`,
  },
  {
    version: 4,
    name: 'private_key_jwt keys, application_type, client assertion jtis',
    // Clients keep their jwks_uri or jwks (JSON text) and application_type (NULL on older rows: read as what
    // their redirect URIs imply). Accepted client-assertion jtis are kept until they expire (single use).
    sql: `
ALTER TABLE keyhold_oauth_clients ADD COLUMN jwks_uri TEXT;
ALTER TABLE keyhold_oauth_clients ADD COLUMN jwks TEXT;
ALTER TABLE keyhold_oauth_clients ADD COLUMN token_endpoint_auth_signing_alg TEXT;
ALTER TABLE keyhold_oauth_clients ADD COLUMN application_type TEXT;
CREATE TABLE keyhold_oauth_client_assertion_jtis (
  tenant TEXT NOT NULL, client_id TEXT NOT NULL, jti TEXT NOT NULL, expires_at INTEGER NOT NULL,
  PRIMARY KEY (tenant, client_id, jti)
);
CREATE INDEX keyhold_oauth_client_assertion_jtis_expires_at ON keyhold_oauth_client_assertion_jtis (expires_at);
`,
  },
  {
    version: 5,
    name: 'refresh tokens keep their sealed successor',
    // Set on rotation while the refresh reuse window is on: the successor token, sealed under a key only
    // the old token's holder can derive (NULL: rotated with the window off, or not rotated yet).
    sql: `
ALTER TABLE keyhold_oauth_refresh_tokens ADD COLUMN sealed_successor TEXT;
`,
  },
  {
    version: 6,
    name: 'client assertion jtis move to the spend-once table',
    // Accepted jtis are now spent in the one spend-once table (`assertion:<tenant>:<client>:<jti>`). Live
    // records move over, so an assertion accepted before the upgrade is still refused after it; a key that
    // would be longer than the store's bound is left out (it would be hashed now, and expires within minutes).
    sql: `${ONCE_SQLITE_TABLE_SQL}
INSERT OR IGNORE INTO keyhold_once (key, expires_at)
  SELECT 'assertion:' || tenant || ':' || client_id || ':' || jti, expires_at
  FROM keyhold_oauth_client_assertion_jtis
  WHERE length('assertion:' || tenant || ':' || client_id || ':' || jti) <= 200;
DROP TABLE keyhold_oauth_client_assertion_jtis;
`,
  },
  {
    version: 7,
    name: 'grants and client blocks',
    // One row per grant (never swept: a person lists revoked grants too), read by primary key on every
    // bearer request; listed by user or by client through the two indexes. Blocked client ids by tenant.
    sql: `
CREATE TABLE keyhold_oauth_grants (
  tenant TEXT NOT NULL, grant_id TEXT NOT NULL, user_id TEXT NOT NULL, client_id TEXT NOT NULL,
  client_type TEXT NOT NULL, kind TEXT NOT NULL, scopes TEXT NOT NULL, resources TEXT NOT NULL,
  offline_access INTEGER NOT NULL, created_at INTEGER NOT NULL, last_used_at INTEGER NOT NULL,
  revoked_at INTEGER, revoked_reason TEXT,
  PRIMARY KEY (tenant, grant_id)
);
CREATE INDEX keyhold_oauth_grants_user ON keyhold_oauth_grants (tenant, user_id, grant_id);
CREATE INDEX keyhold_oauth_grants_client ON keyhold_oauth_grants (tenant, client_id, grant_id);
CREATE TABLE keyhold_oauth_client_blocks (
  tenant TEXT NOT NULL, client_id TEXT NOT NULL, blocked_at INTEGER NOT NULL,
  PRIMARY KEY (tenant, client_id)
);
`,
  },
  {
    version: 8,
    name: 'DPoP key bindings',
    // RFC 9449: a client may be registered to always prove a key (JSON text "true": read whole, like jwks);
    // a code or pending authorization may pin the key (dpop_jkt); a public client's refresh token is bound
    // to its key, and rotation carries the binding to the successor. Nullable columns without a default:
    // a catalogue-only change, no table rewrite; NULL on older rows means no binding.
    sql: `
ALTER TABLE keyhold_oauth_clients ADD COLUMN dpop_bound_access_tokens TEXT;
ALTER TABLE keyhold_oauth_codes ADD COLUMN dpop_jkt TEXT;
ALTER TABLE keyhold_oauth_pending ADD COLUMN dpop_jkt TEXT;
ALTER TABLE keyhold_oauth_refresh_tokens ADD COLUMN jkt TEXT;
`,
  },
  {
    version: 9,
    name: 'decision timeline',
    // Appended by arrival (seq), read newest first per client or per user through their indexes; each
    // append deletes the tenant's rows older than the retention (by `at`) and beyond the size bound (by seq).
    sql: `
CREATE TABLE keyhold_oauth_events (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, tenant TEXT NOT NULL, at INTEGER NOT NULL,
  category TEXT NOT NULL, reason TEXT NOT NULL, status INTEGER NOT NULL, error_code TEXT, grant_type TEXT,
  client_id TEXT, user_id TEXT, grant_id TEXT
);
CREATE INDEX keyhold_oauth_events_tenant ON keyhold_oauth_events (tenant, seq);
CREATE INDEX keyhold_oauth_events_at ON keyhold_oauth_events (tenant, at);
CREATE INDEX keyhold_oauth_events_client ON keyhold_oauth_events (tenant, client_id, seq);
CREATE INDEX keyhold_oauth_events_user ON keyhold_oauth_events (tenant, user_id, seq);
`,
  },
  {
    version: 10,
    name: 'anonymous events bounded apart',
    // Events naming no authenticated subject (a stranger's refusals) are counted and trimmed apart from the
    // others, through their own index, so a flood of them never pushes a person's history out. A constant
    // default: a catalogue-only change, no table rewrite; older rows count as a subject's.
    sql: `
ALTER TABLE keyhold_oauth_events ADD COLUMN anonymous INTEGER NOT NULL DEFAULT 0;
CREATE INDEX keyhold_oauth_events_part ON keyhold_oauth_events (tenant, anonymous, seq);
`,
  },
  {
    version: 11,
    name: 'grant sweeping',
    // When the expiry sweep may delete a grant: set by the server (revoked: once the longest token it could
    // have issued has expired, plus a retention; active: after that long unused). NULL: never swept (rows
    // written before this migration, or by a server that sets none).
    sql: `
ALTER TABLE keyhold_oauth_grants ADD COLUMN expires_at INTEGER;
CREATE INDEX keyhold_oauth_grants_expires ON keyhold_oauth_grants (expires_at);
`,
  },
];

/**
 * The oauth tables whose rows carry an `expires_at` (epoch ms) and may be deleted once it has passed; pass
 * them to {@link startSqliteExpirySweeper} (or {@link sweepExpiredSqlite}). Clients are listed: dynamically
 * registered clients expire when unused; rows with a NULL `expires_at` (provisioned clients) never go.
 *
 * @example
 * ```ts
 * const sweeper = startSqliteExpirySweeper(db, { tables: OAUTH_SQLITE_SWEPT_TABLES });
 * ```
 */
export const OAUTH_SQLITE_SWEPT_TABLES: readonly SqliteSweptTable[] = OAUTH_SWEPT_TABLES;
