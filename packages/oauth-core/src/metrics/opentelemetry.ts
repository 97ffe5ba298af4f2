import type { Attributes, Meter, MeterProvider } from '@opentelemetry/api';
import { metrics as globalMetrics } from '@opentelemetry/api';
import type { AuthEventAttributes, AuthMetrics, CimdFetchAttributes } from '../metrics-types.js';

/**
 * Options of {@link createOpenTelemetryMetrics}. Give a `meter`, or a `meterProvider` to take one from;
 * by default the meter comes from the global provider the host registered with the OpenTelemetry SDK.
 */
export interface OpenTelemetryMetricsOptions {
  /** The meter to create the counters on. */
  readonly meter?: Meter;
  /** Where to take the meter from when `meter` is not given. Default: the global meter provider. */
  readonly meterProvider?: MeterProvider;
}

/**
 * The instrumentation scope (meter name) the counters are reported under.
 *
 * @example
 * ```ts
 * const meter = meterProvider.getMeter(METER_NAME);
 * ```
 */
export const METER_NAME = '@keyhold/oauth-core';

/**
 * The OpenTelemetry implementation of {@link AuthMetrics}: the counters `mcp_auth.events` (attributes
 * `endpoint`, `status`, `grant_type`, `client_type`, `error_code`, each only where it applies) and
 * `mcp_auth.cimd.fetches` (`status`, `cached`, `mcp_auth.cimd_error`). Without a registered SDK the
 * OpenTelemetry API itself is a no-op, so this costs next to nothing until the host installs one.
 *
 * @example
 * ```ts
 * import { createOpenTelemetryMetrics } from '@keyhold/oauth-core/opentelemetry';
 * const server = createAuthorizationServer({ baseUrl, tenants, storage, metrics: createOpenTelemetryMetrics() });
 * ```
 */
export function createOpenTelemetryMetrics(options: OpenTelemetryMetricsOptions = {}): AuthMetrics {
  const meter = options.meter ?? (options.meterProvider ?? globalMetrics).getMeter(METER_NAME);
  const events = meter.createCounter('mcp_auth.events', {
    description: 'Authorization server handler invocations',
    unit: '{invocation}',
  });
  const cimdFetches = meter.createCounter('mcp_auth.cimd.fetches', {
    description: 'Client ID Metadata Document resolution attempts',
    unit: '{attempt}',
  });
  return Object.freeze({
    event(attributes: AuthEventAttributes): void {
      const recorded: Attributes = { endpoint: attributes.endpoint, status: attributes.status };
      if (attributes.grant_type !== undefined) recorded['grant_type'] = attributes.grant_type;
      if (attributes.client_type !== undefined) recorded['client_type'] = attributes.client_type;
      if (attributes.error_code !== undefined) recorded['error_code'] = attributes.error_code;
      events.add(1, recorded);
    },
    cimdFetch(attributes: CimdFetchAttributes): void {
      const recorded: Attributes = { status: attributes.status, cached: attributes.cached };
      if (attributes.cimd_error !== undefined) recorded['mcp_auth.cimd_error'] = attributes.cimd_error;
      cimdFetches.add(1, recorded);
    },
  });
}
