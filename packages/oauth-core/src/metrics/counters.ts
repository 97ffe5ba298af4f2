import type { Attributes, Meter } from '@opentelemetry/api';
import type { AuthEventAttributes, AuthMetrics, CimdFetchAttributes } from '../metrics-types.js';

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
 * The two counters on `meter`. Only types come from `@opentelemetry/api` here, so the main entry can build
 * them on a meter it loaded lazily without importing the optional peer dependency.
 */
export function countersOn(meter: Meter): AuthMetrics {
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
      if (attributes.reason !== undefined) recorded['reason'] = attributes.reason;
      events.add(1, recorded);
    },
    cimdFetch(attributes: CimdFetchAttributes): void {
      const recorded: Attributes = { status: attributes.status, cached: attributes.cached };
      if (attributes.cimd_error !== undefined) recorded['mcp_auth.cimd_error'] = attributes.cimd_error;
      cimdFetches.add(1, recorded);
    },
  });
}
