import { afterAll, describe, expect, it } from 'vitest';
import { createRedisClient } from '../src/connection.js';
import { createRedisRateLimiter } from '../src/rate-limiter.js';
import { createRedisRefreshLock } from '../src/refresh-lock.js';
import { createRedisStores } from '../src/stores.js';
import { REDIS_URL, requireRedis, uniquePrefix } from './redis.js';

const available = await requireRedis();
const redis = available ? createRedisClient(REDIS_URL) : undefined;
afterAll(() => {
  redis?.disconnect();
});

describe.skipIf(!available)(
  'createRedisRefreshLock: one holder at a time, released only by its holder',
  () => {
    it('gives the lease to exactly one of 50 concurrent acquirers', async () => {
      const lock = createRedisRefreshLock(redis!, { keyPrefix: uniquePrefix() });
      const tokens = await Promise.all(Array.from({ length: 50 }, () => lock.acquire('grant-1', 0, 30_000)));
      expect(tokens.filter((t) => t !== undefined)).toHaveLength(1);
    });

    it('refuses a release with the wrong token and accepts the holder’s', async () => {
      const lock = createRedisRefreshLock(redis!, { keyPrefix: uniquePrefix() });
      const token = await lock.acquire('g', 0, 30_000);
      expect(token).toBeTypeOf('string');
      expect(await lock.release('g', 'not-the-token')).toBe(false);
      expect(await lock.acquire('g', 0, 30_000)).toBeUndefined();
      expect(await lock.release('g', token!)).toBe(true);
      expect(await lock.acquire('g', 0, 30_000)).toBeTypeOf('string');
    });

    it('sets the lease to expire at expiresAt, so a crashed holder cannot keep it', async () => {
      const keyPrefix = uniquePrefix();
      const lock = createRedisRefreshLock(redis!, { keyPrefix });
      await lock.acquire('g', 1_000, 31_000);
      const remaining = await redis!.pttl(`${keyPrefix}refresh-lock:g`);
      expect(remaining).toBeGreaterThan(29_000);
      expect(remaining).toBeLessThanOrEqual(30_000);
    });
  },
);

describe.skipIf(!available)('createRedisRateLimiter: shared fixed windows', () => {
  it('counts every hit of a window across clients exactly once', async () => {
    const keyPrefix = uniquePrefix();
    const a = createRedisRateLimiter(redis!, { keyPrefix });
    const other = createRedisClient(REDIS_URL);
    const b = createRedisRateLimiter(other, { keyPrefix });
    const counts = await Promise.all(
      Array.from({ length: 101 }, (_, i) => (i % 2 ? a : b).increment('ip:203.0.113.9', 60_000, 0)),
    );
    other.disconnect();
    expect(counts.sort((x, y) => x - y)).toEqual(Array.from({ length: 101 }, (_, i) => i + 1));
    expect(await redis!.pttl(`${keyPrefix}rate:ip:203.0.113.9`)).toBeGreaterThan(0);
  });

  it('starts over after reset', async () => {
    const limiter = createRedisRateLimiter(redis!, { keyPrefix: uniquePrefix() });
    await limiter.increment('k', 60_000, 0);
    await limiter.reset('k');
    expect(await limiter.increment('k', 60_000, 0)).toBe(1);
  });
});

describe.skipIf(!available)('createRedisStores: every Redis store on one client', () => {
  it('shares the spend-once store across two sets of stores over one Redis, and leaves a passed client open', async () => {
    const keyPrefix = uniquePrefix();
    const first = createRedisStores(redis!, { keyPrefix });
    const second = createRedisStores(REDIS_URL, { keyPrefix });
    try {
      expect(await first.onceStore.consume('state:abc', Date.now() + 60_000, Date.now())).toBe(true);
      expect(await second.onceStore.consume('state:abc', Date.now() + 60_000, Date.now())).toBe(false);
      expect(await first.checkReadiness({ timeoutMs: 2000 })).toEqual({ ok: true });
    } finally {
      await second.close();
      await first.close();
    }
    expect(second.client.status).toBe('end');
    expect(redis!.status).toBe('ready');
  });
});
