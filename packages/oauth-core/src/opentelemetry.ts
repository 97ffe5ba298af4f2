// The `@keyhold/oauth-core/opentelemetry` entry: the only module that imports `@opentelemetry/api` (an optional
// peer dependency), so the main entry loads and runs without it.
export type { OpenTelemetryMetricsOptions } from './metrics/opentelemetry.js';
export { createOpenTelemetryMetrics } from './metrics/opentelemetry.js';
export { createOpenTelemetryTracing } from './metrics/opentelemetry-tracing.js';
