export type { RedisClient } from './connection.js';
export { createRedisClient } from './connection.js';
export type { RedisRateLimiter } from './rate-limiter.js';
export { createRedisRateLimiter } from './rate-limiter.js';
export type { RedisRefreshLock, RedisStoreOptions } from './refresh-lock.js';
export { createRedisRefreshLock } from './refresh-lock.js';
export type { RedisReplayCache } from './replay-cache.js';
export { createRedisReplayCache } from './replay-cache.js';
