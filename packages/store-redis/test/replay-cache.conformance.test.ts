import { describeReplayCacheConformance } from '@keyhold/webhook-kit/testing';
import { afterAll, describe } from 'vitest';
import { createRedisClient } from '../src/connection.js';
import { createRedisReplayCache } from '../src/replay-cache.js';
import { REDIS_URL, requireRedis, uniquePrefix } from './redis.js';

const available = await requireRedis();
const redis = available ? createRedisClient(REDIS_URL) : undefined;
afterAll(() => {
  redis?.disconnect();
});

describe.skipIf(!available)('Redis replay cache', () => {
  describeReplayCacheConformance('redis', () =>
    createRedisReplayCache(redis!, { keyPrefix: uniquePrefix() }),
  );
});
