// `@keyhold/oauth-core/node`: what needs Node's network stack (DNS-pinned, SSRF-safe fetching of client
// metadata documents and their keys). The main entry stays runtime-neutral; its CIMD resolver loads this
// lazily when no `fetch` is given.
export { isForbiddenAddress } from './cimd/address.js';
export { ForbiddenAddressError } from './cimd/fetch-contract.js';
export type { DnsLookup, SafeFetchOptions } from './cimd/safe-fetch.js';
export { createSafeFetch } from './cimd/safe-fetch.js';
