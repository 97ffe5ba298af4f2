export type { RedisReadiness, RedisReadinessOptions } from './availability.js';
export type { RedisClient, RedisClientOptions } from './connection.js';
export { createRedisClient } from './connection.js';
export type { RedisStoreErrorCode } from './errors.js';
export { RedisStoreError } from './errors.js';
export type { RedisStores, RedisStoresOptions } from './stores.js';
export { createRedisStores } from './stores.js';
