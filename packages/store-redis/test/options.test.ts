import { describe, expect, it } from 'vitest';
import { createRedisClient, createRedisStores, type RedisClient, RedisStoreError } from '../src/index.js';
import { createRedisOnceStore } from '../src/once-store.js';
import { createRedisRateLimiter } from '../src/rate-limiter.js';
import { createRedisRefreshLock } from '../src/refresh-lock.js';

const invalidOptions = (message: RegExp) =>
  expect.objectContaining({
    name: 'RedisStoreError',
    code: 'ERR_INVALID_OPTIONS',
    message: expect.stringMatching(message),
  });

describe('every Redis factory checks its options once, at creation, with RedisStoreError', () => {
  it('createRedisClient refuses a URL that is not redis:// or rediss://, and a bad commandTimeoutMs', () => {
    expect(() => createRedisClient('http://127.0.0.1:6379')).toThrow(RedisStoreError);
    expect(() => createRedisClient('http://127.0.0.1:6379')).toThrow(invalidOptions(/url/));
    for (const commandTimeoutMs of [0, -1, 1.5, Number.NaN]) {
      expect(() => createRedisClient('redis://127.0.0.1:6379', { commandTimeoutMs })).toThrow(
        invalidOptions(/commandTimeoutMs/),
      );
      expect(() =>
        createRedisClient('redis://127.0.0.1:6379', { connectTimeoutMs: commandTimeoutMs }),
      ).toThrow(invalidOptions(/connectTimeoutMs/));
    }
  });

  it('createRedisClient takes what ioredis takes: a redis URL in any case, or the path of a Unix socket', () => {
    for (const url of ['REDIS://127.0.0.1:6379', 'rediss://127.0.0.1:6380', '/tmp/keyhold-test-redis.sock']) {
      const client = createRedisClient(url);
      client.on('error', () => {}); // the socket path does not exist; only the check at creation matters
      client.disconnect();
    }
  });

  it('each store refuses a keyPrefix that is not a string', () => {
    const redis = {} as RedisClient;
    const options = { keyPrefix: 42 as unknown as string };
    for (const create of [
      createRedisRefreshLock,
      createRedisRateLimiter,
      createRedisOnceStore,
      createRedisStores,
    ]) {
      expect(() => create(redis, options)).toThrow(invalidOptions(/keyPrefix/));
    }
  });
});
