import { describe, expect, it } from 'vitest';
import { createMemoryReplayCache } from '../src/memory-store.js';
import { describeReplayCacheConformance } from '../src/testing.js';

describeReplayCacheConformance('memory', () => createMemoryReplayCache());

describe('memory replay cache: bounded size', () => {
  it('drops the oldest record once maxEntries is reached', async () => {
    const cache = createMemoryReplayCache({ maxEntries: 2 });
    await cache.claim('a', 1_000, 0);
    await cache.claim('b', 1_000, 0);
    await cache.claim('c', 1_000, 0);
    expect(await cache.claim('a', 1_000, 0)).toBe(true);
    expect(await cache.claim('c', 1_000, 0)).toBe(false);
  });

  it('makes room by sweeping expired records before dropping live ones', async () => {
    const cache = createMemoryReplayCache({ maxEntries: 2 });
    await cache.claim('live', 10_000, 0);
    await cache.claim('expired', 100, 0);
    await cache.claim('new', 10_000, 500);
    expect(await cache.claim('live', 10_000, 500)).toBe(false);
  });

  it('refuses a maxEntries that is not a positive integer', () => {
    expect(() => createMemoryReplayCache({ maxEntries: 0 })).toThrow(/maxEntries/);
  });
});
