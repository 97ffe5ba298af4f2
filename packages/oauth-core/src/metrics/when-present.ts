import type { MeterProvider, metrics } from '@opentelemetry/api';
import type { AuthMetrics } from '../metrics-types.js';
import { noopMetrics } from '../metrics-types.js';
import { countersOn, METER_NAME } from './counters.js';

/** The part of `@opentelemetry/api` the default metrics use. */
export interface MetricsApi {
  readonly metrics: Pick<typeof metrics, 'getMeterProvider'>;
}

/** {@link AuthMetrics} that also tell when the optional peer dependency was looked for. */
export interface MetricsWhenPresent extends AuthMetrics {
  /** Settles once `@opentelemetry/api` was loaded or found absent; never rejects. */
  settled(): Promise<void>;
}

// Counts made before the API finished loading wait here; past this many (a host flooded in its first
// milliseconds) the rest are dropped rather than held without bound.
const PENDING_LIMIT = 1_000;

/**
 * The default `metrics`: the `mcp_auth.*` counters through `@opentelemetry/api` when it resolves, nothing
 * when it does not. `load` runs once, on first use; a failed load (the package is not installed) is final
 * and never throws to the caller. The counters follow the global meter provider: one the host registers
 * after the server was created is picked up at the next count.
 */
export function createMetricsWhenPresent(load: () => Promise<MetricsApi>): MetricsWhenPresent {
  let api: MetricsApi | undefined;
  let loading: Promise<void> | undefined;
  let done = false;
  let pending: ((metrics: AuthMetrics) => void)[] = [];
  let provider: MeterProvider | undefined;
  let counters: AuthMetrics = noopMetrics;

  function current(): AuthMetrics {
    if (api === undefined) return noopMetrics;
    // The API hands out a no-op provider until the host registers one, and keeps no proxy: counters made on
    // the no-op would stay silent, so they are made again whenever the global provider changes.
    const global = api.metrics.getMeterProvider();
    if (global !== provider) {
      provider = global;
      counters = countersOn(global.getMeter(METER_NAME));
    }
    return counters;
  }

  function settled(): Promise<void> {
    loading ??= Promise.resolve()
      .then(load)
      .then(
        (loaded) => {
          api = loaded;
        },
        () => {
          // Absent (or broken): metrics stay off, which is what a host without OpenTelemetry asked for.
        },
      )
      .then(() => {
        done = true;
        const queued = pending;
        pending = [];
        for (const count of queued) count(current());
      });
    return loading;
  }

  function count(record: (metrics: AuthMetrics) => void): void {
    if (done) {
      record(current());
      return;
    }
    void settled();
    if (pending.length < PENDING_LIMIT) pending.push(record);
  }

  const whenPresent: MetricsWhenPresent = {
    event: (attributes) => count((metrics) => metrics.event(attributes)),
    cimdFetch: (attributes) => count((metrics) => metrics.cimdFetch(attributes)),
    settled,
  };
  return Object.freeze(whenPresent);
}

/**
 * The process-wide default, shared by every server and resolver created without `metrics`. The dynamic
 * import keeps `@opentelemetry/api` (an optional peer dependency) out of the main entry's static graph.
 */
export const metricsWhenPresent: MetricsWhenPresent = createMetricsWhenPresent(
  () => import('@opentelemetry/api'),
);

/** {@link metricsWhenPresent}, with the import started now so the first requests rarely have to wait. */
export function defaultMetrics(): AuthMetrics {
  void metricsWhenPresent.settled();
  return metricsWhenPresent;
}
