export type { MemoryRateLimiterOptions } from './server/memory-rate-limiter.js';
export { createMemoryRateLimiter } from './server/memory-rate-limiter.js';
export type { RegistryApi, RegistryApiOptions } from './server/registry-api.js';
export { createRegistryApi } from './server/registry-api.js';
export type { RateLimiter } from './server/storage.js';
