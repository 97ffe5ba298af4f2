import { describeOnceStoreConformance } from '@keyhold/core/testing';
import { afterAll, describe } from 'vitest';
import { createRedisClient } from '../src/connection.js';
import { createRedisOnceStore } from '../src/once-store.js';
import { REDIS_URL, requireRedis, uniquePrefix } from './redis.js';

const available = await requireRedis();
const redis = available ? createRedisClient(REDIS_URL) : undefined;
afterAll(() => {
  redis?.disconnect();
});

describe.skipIf(!available)('Redis once store', () => {
  describeOnceStoreConformance('redis', () => createRedisOnceStore(redis!, { keyPrefix: uniquePrefix() }));
});
