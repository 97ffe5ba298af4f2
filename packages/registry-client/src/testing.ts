/**
 * The `RateLimiter` conformance suite, which moved to `@keyhold/core/testing`; re-exported here under its old
 * name so existing store tests keep working.
 *
 * @example
 * ```ts
 * import { describeRateLimiterConformance } from '@keyhold/core/testing';
 * describeRateLimiterConformance('memory', () => createMemoryRateLimiter());
 * ```
 */
export { describeRateLimiterConformance } from '@keyhold/core/testing';
