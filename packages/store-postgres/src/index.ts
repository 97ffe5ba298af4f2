export type { PostgresReadiness, PostgresReadinessOptions } from './availability.js';
export { checkPostgresReadiness } from './availability.js';
export {
  CLAIMS_POSTGRES_MIGRATIONS,
  CLAIMS_POSTGRES_SWEPT_TABLES,
  createPostgresClaimStore,
} from './claim-store.js';
export type { PostgresClient, PostgresPool, PostgresPoolOptions } from './database.js';
export { createPostgresPool, withTransaction } from './database.js';
export type { PostgresStoreErrorCode } from './errors.js';
export { PostgresStoreError } from './errors.js';
export { createPostgresLoginTransactionStore, createPostgresUserStore } from './federated-store.js';
export type { PostgresMigration } from './migrations.js';
export { migratePostgres } from './migrations.js';
export { OAUTH_POSTGRES_MIGRATIONS, OAUTH_POSTGRES_SWEPT_TABLES } from './oauth-schema.js';
export { createPostgresOAuthStorage } from './oauth-store.js';
export type { PostgresExpirySweeper, PostgresExpirySweeperOptions, PostgresSweptTable } from './sweeper.js';
export { startPostgresExpirySweeper } from './sweeper.js';
export { TOKEN_VAULT_POSTGRES_MIGRATIONS, TOKEN_VAULT_POSTGRES_SWEPT_TABLES } from './token-vault-schema.js';
export {
  createPostgresGrantStore,
  createPostgresRefreshLock,
  createPostgresTokenVaultPendingStore,
  createPostgresTokenVaultStorage,
} from './token-vault-store.js';
