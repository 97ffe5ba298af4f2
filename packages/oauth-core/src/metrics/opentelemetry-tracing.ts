import { SpanKind, SpanStatusCode, type Tracer, trace } from '@opentelemetry/api';
import type { RequestTracing } from '../tracing.js';

/** The tracer name spans are recorded under when no tracer is given. */
export const TRACER_NAME = '@keyhold/oauth-core';

/**
 * Spans for every authorization-server request: `keyhold.oauth.<endpoint>` (kind SERVER) with
 * `keyhold.tenant`, `keyhold.endpoint`, `http.response.status_code`, and when known `keyhold.grant_type`,
 * `keyhold.client_type` and `keyhold.error_code`. A 500 sets the span status to ERROR and records the
 * exception. No token, code or secret is ever an attribute.
 *
 * @example
 * ```ts
 * createAuthorizationServer({ ...options, tracing: createOpenTelemetryTracing() });
 * ```
 */
export function createOpenTelemetryTracing(options: { readonly tracer?: Tracer } = {}): RequestTracing {
  const tracer = options.tracer ?? trace.getTracer(TRACER_NAME);
  return {
    start(endpoint, tenant) {
      const span = tracer.startSpan(`keyhold.oauth.${endpoint}`, {
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
      };
    },
  };
}
