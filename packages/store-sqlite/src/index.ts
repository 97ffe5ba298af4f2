export type { SqliteReadiness } from './availability.js';
export type { OpenSqliteOptions, SqliteDatabase } from './database.js';
export { openSqliteDatabase } from './database.js';
export type { SqliteStoreErrorCode } from './errors.js';
export { SqliteStoreError } from './errors.js';
export { migrateSqlite } from './migrations.js';
export type { SqliteStores } from './stores.js';
export { createSqliteStores } from './stores.js';
