import type { Meter, MeterProvider } from '@opentelemetry/api';
import { metrics as globalMetrics } from '@opentelemetry/api';
import type { AuthMetrics } from '../metrics-types.js';
import { countersOn, METER_NAME } from './counters.js';

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
  return countersOn(options.meter ?? (options.meterProvider ?? globalMetrics).getMeter(METER_NAME));
}
