import { type CoreError, createMemoryRateLimiter, type RateLimiter } from '@keyhold/core';
import { describe, expect, it } from 'vitest';
import { assertRateLimitRule, consumeRateLimit, rateLimitedResult } from '../src/rate-limit.js';

describe('consumeRateLimit: fixed windows keyed by the window index', () => {
  const minute = 60_000;
  const start = Date.parse('2026-01-01T00:00:00Z');

  it('allows `limit` hits in a window, counting down what remains', async () => {
    const limiter = createMemoryRateLimiter();
    const rule = { key: 'k', limit: 3, windowSeconds: 60 };
    expect(await consumeRateLimit(limiter, rule, start)).toEqual({ ok: true, remaining: 2 });
    expect(await consumeRateLimit(limiter, rule, start + 1)).toEqual({ ok: true, remaining: 1 });
    expect(await consumeRateLimit(limiter, rule, start + 2)).toEqual({ ok: true, remaining: 0 });
  });

  it('refuses the next hit with the whole seconds left in the window (rounded up, at least 1)', async () => {
    const limiter = createMemoryRateLimiter();
    const rule = { key: 'k', limit: 1, windowSeconds: 60 };
    await consumeRateLimit(limiter, rule, start + 10_000);
    expect(await consumeRateLimit(limiter, rule, start + 10_500)).toEqual({
      ok: false,
      retryAfterSeconds: 50,
    });
    expect(await consumeRateLimit(limiter, rule, start + minute - 1)).toEqual({
      ok: false,
      retryAfterSeconds: 1,
    });
  });

  it('opens a new budget when the window turns', async () => {
    const limiter = createMemoryRateLimiter();
    const rule = { key: 'k', limit: 1, windowSeconds: 60 };
    await consumeRateLimit(limiter, rule, start);
    expect((await consumeRateLimit(limiter, rule, start + 30_000)).ok).toBe(false);
    expect(await consumeRateLimit(limiter, rule, start + minute)).toEqual({ ok: true, remaining: 0 });
  });

  it('counts keys independently', async () => {
    const limiter = createMemoryRateLimiter();
    await consumeRateLimit(limiter, { key: 'a', limit: 1, windowSeconds: 60 }, start);
    expect((await consumeRateLimit(limiter, { key: 'a', limit: 1, windowSeconds: 60 }, start)).ok).toBe(
      false,
    );
    expect((await consumeRateLimit(limiter, { key: 'b', limit: 1, windowSeconds: 60 }, start)).ok).toBe(true);
  });

  it('suffixes the key with the window index and expires the counter at the window end', async () => {
    const calls: [string, number, number][] = [];
    const limiter: RateLimiter = {
      increment: async (key, expiresAt, nowMs) => {
        calls.push([key, expiresAt, nowMs]);
        return 1;
      },
      reset: async () => {},
    };
    const now = start + 12_345;
    await consumeRateLimit(
      limiter,
      { key: 'oauth:register:ip:198.51.100.1', limit: 5, windowSeconds: 60 },
      now,
    );
    const index = Math.floor(now / minute);
    expect(calls).toEqual([[`oauth:register:ip:198.51.100.1:${index}`, (index + 1) * minute, now]]);
  });
});

describe('assertRateLimitRule: rules are positive integers', () => {
  it('accepts a positive integer limit and window', () => {
    expect(() => assertRateLimitRule('r', { limit: 1, windowSeconds: 1 })).not.toThrow();
  });

  it.each([
    [{ limit: 0, windowSeconds: 60 }, /r\.limit/],
    [{ limit: 1.5, windowSeconds: 60 }, /r\.limit/],
    [{ limit: 10, windowSeconds: 0 }, /r\.windowSeconds/],
    [{ limit: 10, windowSeconds: Number.NaN }, /r\.windowSeconds/],
  ])('throws ERR_INVALID_OPTIONS for %o', (rule, message) => {
    expect(() => assertRateLimitRule('r', rule)).toThrow(message);
    try {
      assertRateLimitRule('r', rule);
    } catch (error) {
      expect((error as CoreError).code).toBe('ERR_INVALID_OPTIONS');
    }
  });
});

describe('rateLimitedResult: 429, Retry-After, RFC 6749-shaped body, no-store', () => {
  it('answers 429 with rate_limited and the retry delay', () => {
    const result = rateLimitedResult(42);
    expect(result.status).toBe(429);
    expect(result.headers['retry-after']).toBe('42');
    expect(result.headers['cache-control']).toBe('no-store');
    expect(result.headers['content-type']).toMatch(/^application\/json/);
    expect(JSON.parse(result.body ?? '')).toEqual({
      error: 'rate_limited',
      error_description: 'too many requests; retry in 42 s',
    });
  });

  it('keeps extra headers but never lets them replace Retry-After', () => {
    const result = rateLimitedResult(3, 'slow down', {
      'access-control-allow-origin': '*',
      'retry-after': '0',
    });
    expect(result.headers['access-control-allow-origin']).toBe('*');
    expect(result.headers['retry-after']).toBe('3');
    expect(JSON.parse(result.body ?? '').error_description).toBe('slow down');
  });
});
