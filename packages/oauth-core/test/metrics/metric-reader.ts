// Reading counters back through the real OpenTelemetry SDK, for the metrics tests.
import type { DataPoint, MetricData } from '@opentelemetry/sdk-metrics';
import { MetricReader } from '@opentelemetry/sdk-metrics';

/** A pull reader: the test collects whenever it wants to read the counters back. */
export class TestReader extends MetricReader {
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

/** Every point of the metric `name` as `{ attributes, value }`; none when it was never counted. */
export async function read(
  reader: MetricReader,
  name: string,
): Promise<{ attributes: object; value: number }[]> {
  const { resourceMetrics } = await reader.collect();
  const metric: MetricData | undefined = resourceMetrics.scopeMetrics
    .flatMap((scope) => scope.metrics)
    .find((candidate) => candidate.descriptor.name === name);
  if (!metric) return [];
  return (metric.dataPoints as DataPoint<number>[]).map((point) => ({
    attributes: point.attributes,
    value: point.value,
  }));
}
