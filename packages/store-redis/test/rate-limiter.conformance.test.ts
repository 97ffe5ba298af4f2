import { describeRateLimiterConformance } from '@keyhold/core/testing';
import { afterAll, describe } from 'vitest';
import { createRedisClient } from '../src/connection.js';
import { createRedisRateLimiter } from '../src/rate-limiter.js';
import { REDIS_URL, requireRedis, uniquePrefix } from './redis.js';

const available = await requireRedis();
const redis = available ? createRedisClient(REDIS_URL) : undefined;
afterAll(() => {
  redis?.disconnect();
});

describe.skipIf(!available)('Redis rate limiter', () => {
  describeRateLimiterConformance('redis', () =>
    createRedisRateLimiter(redis!, { keyPrefix: uniquePrefix() }),
  );
});
