import { describe, expect, it } from 'vitest';
import { cacheLifetimeSeconds } from '../../src/cimd/cache-control.js';

describe('cacheLifetimeSeconds: the reuse lifetime a Cache-Control header asks for, before clamping', () => {
  it.each([
    [null, undefined],
    ['', undefined],
    ['public', undefined],
    ['max-age=600', 600],
    ['public, MAX-AGE=60', 60],
    ['max-age="120"', 120],
    ['max-age=-5', undefined],
    ['max-age=abc', undefined],
    ['max-age=600, no-cache', 0],
    ['no-store', 0],
  ])('%s → %s', (header, expected) => {
    expect(cacheLifetimeSeconds(header)).toBe(expected);
  });
});
