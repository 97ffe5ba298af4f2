import { describeRequestStateStoreConformance } from '@keyhold/mcp/testing';
import { afterAll, describe } from 'vitest';
import { createRedisClient } from '../src/connection.js';
import { createRedisRequestStateStore } from '../src/request-state-store.js';
import { REDIS_URL, requireRedis, uniquePrefix } from './redis.js';

const available = await requireRedis();
const redis = available ? createRedisClient(REDIS_URL) : undefined;
afterAll(() => {
  redis?.disconnect();
});

describe.skipIf(!available)('Redis MCP request-state store', () => {
  describeRequestStateStoreConformance({
    name: 'redis',
    create: () => createRedisRequestStateStore(redis!, { keyPrefix: uniquePrefix() }),
  });
});
