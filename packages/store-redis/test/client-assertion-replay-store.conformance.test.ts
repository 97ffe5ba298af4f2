import { describeClientAssertionReplayStoreConformance } from '@keyhold/oauth-core/testing';
import { afterAll, describe } from 'vitest';
import { createRedisClientAssertionReplayStore } from '../src/client-assertion-replay-store.js';
import { createRedisClient } from '../src/connection.js';
import { REDIS_URL, requireRedis, uniquePrefix } from './redis.js';

const available = await requireRedis();
const redis = available ? createRedisClient(REDIS_URL) : undefined;
afterAll(() => {
  redis?.disconnect();
});

describe.skipIf(!available)('Redis client assertion replay store', () => {
  describeClientAssertionReplayStoreConformance('redis', () =>
    createRedisClientAssertionReplayStore(redis!, { keyPrefix: uniquePrefix() }),
  );
});
