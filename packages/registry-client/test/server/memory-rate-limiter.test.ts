import { createMemoryRateLimiter as coreMemoryRateLimiter } from '@keyhold/core';
import { describe, expect, it } from 'vitest';
import { createMemoryRateLimiter } from '../../src/server/memory-rate-limiter.js';
import { describeRateLimiterConformance } from '../../src/testing.js';

// The limiter and its suite moved to @keyhold/core; the old names keep working.
describeRateLimiterConformance('memory, through the registry re-export', () => createMemoryRateLimiter());

describe('re-exports: the registry names are the core ones', () => {
  it('exports core createMemoryRateLimiter under its old name', () => {
    expect(createMemoryRateLimiter).toBe(coreMemoryRateLimiter);
  });
});
