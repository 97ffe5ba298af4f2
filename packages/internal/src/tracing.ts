import type { RequestTracing } from '@keyhold/core';
import type { Handler } from './handler.js';

/**
 * `handler` with one span per request through `tracing` (or `handler` itself when there is none): the span
 * is named `name` and ends with the status, or with a 500 and the exception when the handler throws.
 *
 * @example
 * ```ts
 * const traced = traceHandler(async () => ({ status: 204, headers: {} }), tracing, 'webhook');
 * ```
 */
export function traceHandler(handler: Handler, tracing: RequestTracing | undefined, name: string): Handler {
  if (tracing === undefined) return handler;
  return async (request) => {
    const end = tracing.start(name, '');
    try {
      const result = await handler(request);
      end({ status: result.status });
      return result;
    } catch (error) {
      end({ status: 500, error });
      throw error;
    }
  };
}
