/**
 * The in-memory limiter moved to `@keyhold/core` (`createMemoryRateLimiter`); re-exported here so existing
 * imports from `@keyhold/registry-client/server` keep working.
 */
export type { MemoryRateLimiterOptions } from '@keyhold/core';
export { createMemoryRateLimiter } from '@keyhold/core';
