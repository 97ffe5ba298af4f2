export type { PostgresReadiness, PostgresReadinessOptions } from './availability.js';
export type { PostgresPool, PostgresPoolOptions } from './database.js';
export { createPostgresPool, withTransaction } from './database.js';
export type { PostgresStoreErrorCode } from './errors.js';
export { PostgresStoreError } from './errors.js';
export { migratePostgres } from './migrations.js';
export type { PostgresStores } from './stores.js';
export { createPostgresStores } from './stores.js';
