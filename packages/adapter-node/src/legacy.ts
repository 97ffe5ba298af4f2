// `@keyhold/adapter-node/legacy`: the mounting pieces `toNodeListener` replaces, kept only until the example
// host, the runtimes and the benchmarks are ported to it. Internal: not part of the supported surface, and
// removed without a major version.
export { clientIp } from './client-ip.js';
export type { GuardHostsOptions, NodeListener } from './host-guard.js';
export { guardHosts, MISDIRECTED_STATUS } from './host-guard.js';
export type { NodeListenerOptions } from './listener.js';
export { createNodeListener } from './listener.js';
export type { ReadRequestOptions } from './request.js';
export { readRequest } from './request.js';
export type { RouteHandler, RouteParams, Router } from './router.js';
export { createRouter } from './router.js';
export { writeResponse } from './write-response.js';
export { writeResult } from './write-result.js';
