import { KeyholdError } from '@keyhold/core';

/** Codes of {@link RedisStoreError}. */
export type RedisStoreErrorCode = 'ERR_INVALID_OPTIONS';

/**
 * Raised when a Redis store factory is given options it cannot use, at creation and never later.
 *
 * @example
 * ```ts
 * import { createRedisClient, RedisStoreError } from '@keyhold/store-redis';
 * try {
 *   createRedisClient('redis://127.0.0.1:6379', { commandTimeoutMs: 0 });
 * } catch (error) {
 *   if (error instanceof RedisStoreError && error.code === 'ERR_INVALID_OPTIONS') console.error(error.message);
 * }
 * ```
 */
export class RedisStoreError extends KeyholdError<RedisStoreErrorCode> {}
