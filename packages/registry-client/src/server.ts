export type { RegistryApi, RegistryApiOptions } from './server/registry-api.js';
export { createRegistryApi } from './server/registry-api.js';
