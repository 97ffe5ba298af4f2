import type { Logger } from '@keyhold/core';
import type { HostConfig } from './config.js';

/** The host's OpenTelemetry metrics export, running until {@link MetricsExport.shutdown}. */
export interface MetricsExport {
  /** Sends what was counted since the last export, then stops the reader. */
  shutdown(): Promise<void>;
}

/**
 * Registers a global MeterProvider that pushes to the OTLP/HTTP collector the standard `OTEL_EXPORTER_OTLP_*`
 * variables name, so the `mcp_auth.*` counters oauth-core records through `@opentelemetry/api` leave the
 * process. Without an endpoint nothing is loaded: the SDK is imported only here, on demand.
 */
export async function startMetricsExport(
  config: HostConfig['otlpMetrics'],
  logger: Logger,
): Promise<MetricsExport | undefined> {
  if (config === undefined) return undefined;
  const [{ metrics }, { MeterProvider, PeriodicExportingMetricReader }, { OTLPMetricExporter }] =
    await Promise.all([
      import('@opentelemetry/api'),
      import('@opentelemetry/sdk-metrics'),
      import('@opentelemetry/exporter-metrics-otlp-http'),
    ]);
  // The exporter reads the endpoint, headers and timeout from the same OTEL_EXPORTER_OTLP_* variables.
  const reader = new PeriodicExportingMetricReader({
    exporter: new OTLPMetricExporter(),
    exportIntervalMillis: config.exportIntervalMs,
    exportTimeoutMillis: Math.min(config.exportIntervalMs, 30_000),
  });
  const provider = new MeterProvider({ readers: [reader] });
  metrics.setGlobalMeterProvider(provider);
  logger.info({ exportIntervalMs: config.exportIntervalMs }, 'OpenTelemetry metrics export on (OTLP/HTTP)');
  return {
    shutdown: async () => {
      try {
        await provider.shutdown();
      } catch (error) {
        // An unreachable collector must not keep the host from stopping.
        logger.warn({ err: error }, 'OpenTelemetry metrics: the last export failed');
      }
      metrics.disable();
    },
  };
}
