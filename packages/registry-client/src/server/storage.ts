/**
 * The counter store behind the registry's per-IP rate limit. It is `@keyhold/core`'s `RateLimiter` (one
 * interface for every Keyhold limit), re-exported under its old place so nothing breaks.
 */
export type { RateLimiter } from '@keyhold/core';
