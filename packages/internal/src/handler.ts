import type { HandlerRequest, HandlerResult } from '@keyhold/core';

/**
 * A framework-agnostic HTTP handler. It answers bad input with a status, and throws only for programming
 * errors and storage outages.
 *
 * @example
 * ```ts
 * const health: Handler = async () => jsonResult(200, { status: 'ok' });
 * ```
 */
export type Handler = (request: HandlerRequest) => Promise<HandlerResult>;
