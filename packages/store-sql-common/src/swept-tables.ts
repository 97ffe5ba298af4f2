import type { SweptTable } from './expiry-sweeper.js';

/**
 * The oauth tables whose rows carry an `expires_at` (epoch ms): the same names in both dialects, which each
 * store exports under its own name. Clients are listed: dynamically registered clients expire when unused;
 * a NULL `expires_at` (provisioned clients) never goes.
 *
 * @example
 * ```ts
 * export const OAUTH_SQLITE_SWEPT_TABLES: readonly SqliteSweptTable[] = OAUTH_SWEPT_TABLES;
 * ```
 */
export const OAUTH_SWEPT_TABLES: readonly SweptTable[] = [
  { table: 'keyhold_oauth_clients' },
  { table: 'keyhold_oauth_codes' },
  { table: 'keyhold_oauth_pending' },
  { table: 'keyhold_oauth_refresh_tokens' },
  { table: 'keyhold_oauth_consents' },
  { table: 'keyhold_oauth_revoked_access_tokens' },
  { table: 'keyhold_oauth_login_transactions' },
  // Grants get an expires_at from the server once every token issued under them has expired (revoked or
  // long unused, see the server's grantRetention); NULL (older rows) never goes.
  { table: 'keyhold_oauth_grants' },
];

/**
 * The token_vault tables that may be swept. Grants are not: an expired access token is refreshed, not
 * forgotten.
 *
 * @example
 * ```ts
 * startSqliteExpirySweeper(db, { tables: [...OAUTH_SWEPT_TABLES, ...TOKEN_VAULT_SWEPT_TABLES] });
 * ```
 */
export const TOKEN_VAULT_SWEPT_TABLES: readonly SweptTable[] = [
  { table: 'keyhold_vault_elicitations' },
  { table: 'keyhold_vault_pending_authorizations' },
  { table: 'keyhold_vault_refresh_leases' },
];

/**
 * The claims table, swept once a claim has expired.
 *
 * @example
 * ```ts
 * startPostgresExpirySweeper(pool, { tables: CLAIMS_SWEPT_TABLES });
 * ```
 */
export const CLAIMS_SWEPT_TABLES: readonly SweptTable[] = [{ table: 'keyhold_claims' }];

/**
 * The spend-once table (`OnceStore` of `@keyhold/core`): a key's record goes once it has expired.
 *
 * @example
 * ```ts
 * startSqliteExpirySweeper(db, { tables: [...OAUTH_SWEPT_TABLES, ...ONCE_SWEPT_TABLES] });
 * ```
 */
export const ONCE_SWEPT_TABLES: readonly SweptTable[] = [{ table: 'keyhold_once' }];
