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
