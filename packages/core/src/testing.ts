import { describe, expect, it } from 'vitest';
import type { OnceStore } from './once-store.js';
import type { RateLimiter } from './rate-limit.js';

/**
 * The conformance suite every {@link RateLimiter} store runs (memory, Redis, yours). It uses only the
 * interface, with a fresh store per test, and needs vitest.
 *
 * @example
 * ```ts
 * import { describeRateLimiterConformance } from '@keyhold/core/testing';
 * describeRateLimiterConformance('redis', () => createRedisStores(redis, { keyPrefix: 'test:' }).rateLimiter);
 * ```
 */
export function describeRateLimiterConformance(
  name: string,
  makeLimiter: () => RateLimiter | Promise<RateLimiter>,
): void {
  describe(`RateLimiter conformance: ${name}`, () => {
    const now = 1_767_225_600_000;

    it('counts hits on one key within its window, starting at 1', async () => {
      const limiter = await makeLimiter();
      expect(await limiter.increment('k', now + 60_000, now)).toBe(1);
      expect(await limiter.increment('k', now + 60_000, now + 1)).toBe(2);
      expect(await limiter.increment('k', now + 60_000, now + 59_999)).toBe(3);
    });

    it('keeps separate counts for separate keys', async () => {
      const limiter = await makeLimiter();
      await limiter.increment('a', now + 60_000, now);
      await limiter.increment('a', now + 60_000, now);
      expect(await limiter.increment('b', now + 60_000, now)).toBe(1);
    });

    it('starts again at 1 once expiresAt is reached', async () => {
      const limiter = await makeLimiter();
      await limiter.increment('k', now + 60_000, now);
      await limiter.increment('k', now + 60_000, now);
      expect(await limiter.increment('k', now + 120_000, now + 60_000)).toBe(1);
    });

    it('forgets a key on reset, and ignores unknown keys', async () => {
      const limiter = await makeLimiter();
      await limiter.increment('k', now + 60_000, now);
      await limiter.reset('k');
      await limiter.reset('never-seen');
      expect(await limiter.increment('k', now + 60_000, now)).toBe(1);
    });

    it('loses no hit under concurrent increments', async () => {
      const limiter = await makeLimiter();
      const counts = await Promise.all(
        Array.from({ length: 50 }, () => limiter.increment('k', now + 60_000, now)),
      );
      expect([...counts].sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    });
  });
}

/**
 * The one conformance suite every {@link OnceStore} runs (memory, SQLite, PostgreSQL, Redis, yours): first
 * use wins, keys are apart, an expired record counts as absent, `release` makes a key spendable again, and
 * exactly one of many concurrent callers wins. It uses only the interface, with a fresh store per test and
 * keys no other run uses (stores over one shared database stay apart), and needs vitest.
 *
 * @example
 * ```ts
 * import { createMemoryOnceStore } from '@keyhold/core';
 * import { describeOnceStoreConformance } from '@keyhold/core/testing';
 * describeOnceStoreConformance('memory', () => createMemoryOnceStore());
 * ```
 */
export function describeOnceStoreConformance(
  name: string,
  makeStore: () => OnceStore | Promise<OnceStore>,
): void {
  const now = 1_767_225_600_000;
  const run = globalThis.crypto.randomUUID();
  let counter = 0;
  const unique = (label: string): string => `conformance:${run}:${label}:${++counter}`;

  describe(`OnceStore conformance: ${name}`, () => {
    it('answers true for the first consume of a key and false while its record is unexpired', async () => {
      const store = await makeStore();
      const key = unique('first');
      expect(await store.consume(key, now + 60_000, now)).toBe(true);
      expect(await store.consume(key, now + 60_000, now + 1)).toBe(false);
      expect(await store.consume(key, now + 120_000, now + 59_999)).toBe(false);
    });

    it('keeps keys apart', async () => {
      const store = await makeStore();
      const key = unique('apart');
      expect(await store.consume(`${key}:a`, now + 60_000, now)).toBe(true);
      expect(await store.consume(`${key}:b`, now + 60_000, now)).toBe(true);
    });

    it('counts a record at or past its expiresAt as absent, and replaces it', async () => {
      const store = await makeStore();
      const key = unique('expiry');
      expect(await store.consume(key, now + 1000, now)).toBe(true);
      expect(await store.consume(key, now + 5000, now + 1000)).toBe(true);
      expect(await store.consume(key, now + 9000, now + 4999)).toBe(false);
    });

    it('makes a key spendable again after release', async () => {
      const store = await makeStore();
      const key = unique('release');
      await store.consume(key, now + 60_000, now);
      await store.release(key);
      expect(await store.consume(key, now + 60_000, now)).toBe(true);
      expect(await store.consume(key, now + 60_000, now)).toBe(false);
    });

    it('releases a key never consumed without error', async () => {
      const store = await makeStore();
      await expect(store.release(unique('never'))).resolves.toBeUndefined();
    });

    it('takes keys of 200 characters, any characters', async () => {
      const store = await makeStore();
      const key = `${unique('long')}:é/ü%:`.padEnd(200, 'x');
      expect(await store.consume(key, now + 60_000, now)).toBe(true);
      expect(await store.consume(key, now + 60_000, now)).toBe(false);
    });

    it('lets exactly one of fifty concurrent consumers of one key win', async () => {
      const store = await makeStore();
      const key = unique('contended');
      const results = await Promise.all(
        Array.from({ length: 50 }, () => store.consume(key, now + 60_000, now)),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
    });
  });
}
