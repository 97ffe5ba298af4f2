export { toNodeListener, writeResponse } from './fetch-listener.js';
export type { GuardHostsOptions, NodeListener } from './host-guard.js';
export { guardHosts, MISDIRECTED_STATUS } from './host-guard.js';
export type { NodeListenerOptions } from './listener.js';
export { createNodeListener, writeResult } from './listener.js';
export type { ReadRequestOptions } from './request.js';
export {
  BodyAlreadyConsumedError,
  BodyTimeoutError,
  BodyTooLargeError,
  clientIp,
  readRequest,
} from './request.js';
export type { RouteHandler, RouteParams, Router } from './router.js';
export { createRouter } from './router.js';
export type { RunningServer, ServeOptions } from './serve.js';
export { serve } from './serve.js';
