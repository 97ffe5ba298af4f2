import type { RequestTracing } from '@keyhold/core';
import { type Meter, metrics, SpanKind, SpanStatusCode, type Tracer, trace } from '@opentelemetry/api';

/** The tracer name spans are recorded under when no tracer is given. */
export const TRACER_NAME = '@keyhold/oauth-core';

/**
 * Spans for every request of a Keyhold area: `<spanPrefix><endpoint>` (kind SERVER; the prefix defaults to
 * `keyhold.oauth.`, and `keyhold.mcp.` or `keyhold.webhook.` suit the other areas' `tracing` options) with
 * `keyhold.tenant`, `keyhold.endpoint`, `http.response.status_code`, and when known `keyhold.grant_type`,
 * `keyhold.client_type` and `keyhold.error_code`. A 500 sets the span status to ERROR and records the
 * exception. Each request is also recorded in the `keyhold.request.duration` histogram (seconds, by
 * `keyhold.endpoint` and `http.response.status_code`) on `meter` (default: the global meter provider's).
 * No token, code or secret is ever an attribute.
 *
 * @example
 * ```ts
 * createAuthorizationServer({ ...options, tracing: createOpenTelemetryTracing() });
 * ```
 */
export function createOpenTelemetryTracing(
  options: { readonly tracer?: Tracer; readonly meter?: Meter; readonly spanPrefix?: string } = {},
): RequestTracing {
  const tracer = options.tracer ?? trace.getTracer(TRACER_NAME);
  const prefix = options.spanPrefix ?? 'keyhold.oauth.';
  // Metrics for every area through the same hook: one duration histogram, by endpoint and status.
  const meter = options.meter ?? metrics.getMeter(TRACER_NAME);
  const duration = meter.createHistogram('keyhold.request.duration', {
    description: 'Duration of requests served by Keyhold handlers',
    unit: 's',
  });
  return {
    start(endpoint, tenant) {
      const started = performance.now();
      const span = tracer.startSpan(`${prefix}${endpoint}`, {
        kind: SpanKind.SERVER,
        attributes: { 'keyhold.tenant': tenant, 'keyhold.endpoint': endpoint },
      });
      return (outcome) => {
        span.setAttribute('http.response.status_code', outcome.status);
        if (outcome.grantType !== undefined) span.setAttribute('keyhold.grant_type', outcome.grantType);
        if (outcome.clientType !== undefined) span.setAttribute('keyhold.client_type', outcome.clientType);
        if (outcome.errorCode !== undefined) span.setAttribute('keyhold.error_code', outcome.errorCode);
        if (outcome.status >= 500) {
          span.setStatus({ code: SpanStatusCode.ERROR });
          if (outcome.error instanceof Error) span.recordException(outcome.error);
        }
        span.end();
        duration.record((performance.now() - started) / 1000, {
          'keyhold.endpoint': `${prefix}${endpoint}`,
          'http.response.status_code': outcome.status,
        });
      };
    },
  };
}
