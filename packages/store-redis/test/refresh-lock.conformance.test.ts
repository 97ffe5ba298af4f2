import { describeTokenVaultStorageConformance } from '@keyhold/token-vault/testing';
import { afterAll, describe } from 'vitest';
import { createRedisClient } from '../src/connection.js';
import { createRedisRefreshLock } from '../src/refresh-lock.js';
import { REDIS_URL, requireRedis, uniquePrefix } from './redis.js';

const available = await requireRedis();
const redis = available ? createRedisClient(REDIS_URL) : undefined;
afterAll(() => {
  redis?.disconnect();
});

describe.skipIf(!available)('Redis refresh lock', () => {
  describeTokenVaultStorageConformance('redis', {
    refreshLock: () => createRedisRefreshLock(redis!, { keyPrefix: uniquePrefix() }),
  });
});
