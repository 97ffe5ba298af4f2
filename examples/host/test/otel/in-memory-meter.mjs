// Preloaded into the host process (`--import`) the way an operator wires their own OpenTelemetry setup (no
// OTEL_EXPORTER_OTLP_* variable, so the host registers nothing itself): it registers the SDK's MeterProvider as
// the global one, with a pull reader whose collections are written to KEYHOLD_TEST_METRICS_OUT so the test can
// read the counters from outside. The host itself is started unchanged.
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

// Resolved from the host package, which depends on both.
const hostManifest = join(fileURLToPath(import.meta.url), '../../../package.json');
const require = createRequire(hostManifest);
const load = (name) => import(pathToFileURL(require.resolve(name)).href);
const { metrics } = await load('@opentelemetry/api');
const { MeterProvider, MetricReader } = await load('@opentelemetry/sdk-metrics');

class PullReader extends MetricReader {
  async onForceFlush() {}
  async onShutdown() {}
}
const reader = new PullReader();
metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }));

const out = process.env.KEYHOLD_TEST_METRICS_OUT;
setInterval(async () => {
  const { resourceMetrics } = await reader.collect();
  const counters = resourceMetrics.scopeMetrics
    .flatMap((scope) => scope.metrics)
    .map((metric) => ({
      name: metric.descriptor.name,
      points: metric.dataPoints.map((point) => ({ attributes: point.attributes, value: point.value })),
    }));
  writeFileSync(out, JSON.stringify(counters));
}, 100).unref();
