export type { PostgresClient, PostgresPool } from './database.js';
export { createPostgresPool, withTransaction } from './database.js';
export type { PostgresStoreErrorCode } from './errors.js';
export { PostgresStoreError } from './errors.js';
export type { Migration } from './migrations.js';
export { migratePostgres } from './migrations.js';
export type { ExpirySweeper, ExpirySweeperOptions, SweptTable } from './sweeper.js';
export { startExpirySweeper } from './sweeper.js';
