export type { SqliteReadiness } from './availability.js';
export { checkSqliteReadiness } from './availability.js';
export {
  CLAIMS_SQLITE_MIGRATIONS,
  CLAIMS_SQLITE_SWEPT_TABLES,
  createSqliteClaimStore,
} from './claim-store.js';
export type { OpenSqliteOptions, SqliteDatabase } from './database.js';
export { openSqliteDatabase } from './database.js';
export type { SqliteStoreErrorCode } from './errors.js';
export { SqliteStoreError } from './errors.js';
export { createSqliteLoginTransactionStore, createSqliteUserStore } from './federated-store.js';
export type { SqliteMigration } from './migrations.js';
export { migrateSqlite } from './migrations.js';
export { OAUTH_SQLITE_MIGRATIONS, OAUTH_SQLITE_SWEPT_TABLES } from './oauth-schema.js';
export { createSqliteOAuthStorage } from './oauth-store.js';
export type { SqliteExpirySweeper, SqliteExpirySweeperOptions, SqliteSweptTable } from './sweeper.js';
export { startSqliteExpirySweeper, sweepExpiredSqlite } from './sweeper.js';
export { TOKEN_VAULT_SQLITE_MIGRATIONS, TOKEN_VAULT_SQLITE_SWEPT_TABLES } from './token-vault-schema.js';
export {
  createSqliteGrantStore,
  createSqliteRefreshLock,
  createSqliteTokenVaultPendingStore,
  createSqliteTokenVaultStorage,
} from './token-vault-store.js';
