export type { OpenSqliteOptions, SqliteDatabase } from './database.js';
export { openSqliteDatabase } from './database.js';
export type { SqliteStoreErrorCode } from './errors.js';
export { SqliteStoreError } from './errors.js';
export type { Migration } from './migrations.js';
export { migrateSqlite } from './migrations.js';
export { OAUTH_SQLITE_MIGRATIONS, OAUTH_SQLITE_SWEPT_TABLES } from './oauth-schema.js';
export { createSqliteOAuthStorage } from './oauth-store.js';
export { sweepExpiredSqlite } from './sweeper.js';
