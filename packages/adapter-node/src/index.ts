export type { TrustProxy } from './client-ip.js';
export type { NodeAdapterErrorCode } from './errors.js';
export { NodeAdapterError } from './errors.js';
export type { NodeMiddleware, ToNodeListenerOptions } from './node-listener.js';
export { toNodeListener } from './node-listener.js';
export type { RunningServer, ServeOptions } from './serve.js';
export { serve } from './serve.js';
