import { describe, expect, it } from 'vitest';
import { CoreError } from '../src/errors.js';
import { createMemoryRateLimiter } from '../src/rate-limit.js';
import { describeRateLimiterConformance } from '../src/testing.js';

describeRateLimiterConformance('memory', () => createMemoryRateLimiter());

describe('createMemoryRateLimiter: bounded memory', () => {
  it('keeps at most maxKeys counters, dropping expired ones first', async () => {
    const limiter = createMemoryRateLimiter({ maxKeys: 2 });
    await limiter.increment('old', 1_000, 0);
    await limiter.increment('live', 10_000, 0);
    await limiter.increment('new', 10_000, 2_000);
    expect(await limiter.increment('live', 10_000, 2_000)).toBe(2);
    expect(await limiter.increment('new', 10_000, 2_000)).toBe(2);
  });

  it('evicts the oldest live counter when all are live', async () => {
    const limiter = createMemoryRateLimiter({ maxKeys: 2 });
    await limiter.increment('a', 10_000, 0);
    await limiter.increment('b', 10_000, 0);
    await limiter.increment('c', 10_000, 0);
    expect(await limiter.increment('b', 10_000, 0)).toBe(2);
    expect(await limiter.increment('a', 10_000, 0)).toBe(1);
  });

  it('refuses a maxKeys that is not a positive integer', () => {
    expect(() => createMemoryRateLimiter({ maxKeys: 0 })).toThrow(CoreError);
    expect(() => createMemoryRateLimiter({ maxKeys: 1.5 })).toThrow(/maxKeys/);
  });
});
