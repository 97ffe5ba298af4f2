import type { Handler } from './handler.js';

/**
 * What a handler reports when it ends: the status, and what the request was about.
 */
export interface RequestOutcome {
  readonly status: number;
  readonly grantType?: string;
  readonly clientType?: string;
  readonly errorCode?: string;
  /** An exception that became a 500. */
  readonly error?: unknown;
}

/**
 * Per-request tracing: `start` is called when a handler begins and returns the function that ends the
 * span with its outcome. Every Keyhold area that serves HTTP accepts one as its `tracing` option;
 * `createOpenTelemetryTracing` of `@keyhold/oauth-core/opentelemetry` provides one over an OpenTelemetry
 * tracer. Without it nothing is done per request.
 *
 * @example
 * ```ts
 * const tracing: RequestTracing = { start: (endpoint) => (outcome) => console.log(endpoint, outcome.status) };
 * ```
 */
export interface RequestTracing {
  start(endpoint: string, tenant: string): (outcome: RequestOutcome) => void;
}

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
