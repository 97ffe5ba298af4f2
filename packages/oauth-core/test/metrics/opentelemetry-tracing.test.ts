import type { Attributes, Span, SpanOptions, SpanStatus, Tracer } from '@opentelemetry/api';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { DataPoint, Histogram } from '@opentelemetry/sdk-metrics';
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { describe, expect, it } from 'vitest';
import { createOpenTelemetryTracing } from '../../src/opentelemetry.js';
import { basic, createTestServer, postForm, provisionClient } from '../helpers.js';

interface Recorded {
  name: string;
  kind: SpanKind | undefined;
  attributes: Attributes;
  status?: SpanStatus;
  ended: boolean;
}

/** An OpenTelemetry `Tracer` that keeps its spans, typed against @opentelemetry/api. */
function recordingTracer(): { tracer: Tracer; spans: Recorded[] } {
  const spans: Recorded[] = [];
  const tracer = {
    startSpan(name: string, options: SpanOptions = {}): Span {
      const recorded: Recorded = {
        name,
        kind: options.kind,
        attributes: { ...options.attributes },
        ended: false,
      };
      spans.push(recorded);
      const span = {
        setAttribute(key: string, value: unknown) {
          recorded.attributes[key] = value as never;
          return span;
        },
        setStatus(status: SpanStatus) {
          recorded.status = status;
          return span;
        },
        recordException() {},
        end() {
          recorded.ended = true;
        },
      };
      return span as unknown as Span;
    },
  } as unknown as Tracer;
  return { tracer, spans };
}

describe('OpenTelemetry spans: one SERVER span per authorization-server request', () => {
  it('names the endpoint and tenant and records status, grant type and error code, never a secret', async () => {
    const { tracer, spans } = recordingTracer();
    const t = await createTestServer({ options: { tracing: createOpenTelemetryTracing({ tracer }) } });
    const client = await provisionClient(t.server, { grantTypes: ['client_credentials'] });
    const ok = await t.server.token(
      postForm(
        '/tenant/demo/token',
        { grant_type: 'client_credentials' },
        basic(client.client_id, client.client_secret!),
      ),
      'demo',
    );
    expect(ok.status).toBe(200);
    await t.server.token(
      postForm('/tenant/demo/token', { grant_type: 'client_credentials' }, basic(client.client_id, 'wrong')),
      'demo',
    );
    expect(spans).toHaveLength(2);
    expect(spans[0]).toMatchObject({
      name: 'keyhold.oauth.token',
      kind: SpanKind.SERVER,
      ended: true,
      attributes: {
        'keyhold.tenant': 'demo',
        'http.response.status_code': 200,
        'keyhold.grant_type': 'client_credentials',
      },
    });
    expect(spans[1]?.attributes).toMatchObject({
      'http.response.status_code': 401,
      'keyhold.error_code': 'invalid_client',
    });
    expect(spans[1]?.status).toBeUndefined();
    expect(JSON.stringify(spans)).not.toContain(client.client_secret!);
  });

  it('marks a 500 (an outage of the tenant lookup) as an ERROR span and still ends it', async () => {
    const { tracer, spans } = recordingTracer();
    const t = await createTestServer({
      options: {
        tracing: createOpenTelemetryTracing({ tracer }),
        tenants: { get: async () => Promise.reject(new Error('database down')) },
      },
    });
    await expect(
      t.server.token(
        postForm('/tenant/demo/token', { grant_type: 'client_credentials' }, basic('c', 's')),
        'demo',
      ),
    ).rejects.toThrow('database down');
    expect(spans[0]).toMatchObject({ ended: true, status: { code: SpanStatusCode.ERROR } });
  });
});

describe('OpenTelemetry metrics through the tracing hook: keyhold.request.duration for every area', () => {
  it('records one duration per request by endpoint and status, on a real SDK meter', async () => {
    class TestReader extends MetricReader {
      protected override async onForceFlush(): Promise<void> {}
      protected override async onShutdown(): Promise<void> {}
    }
    const reader = new TestReader();
    const meter = new MeterProvider({ readers: [reader] }).getMeter('test');
    const tracing = createOpenTelemetryTracing({
      tracer: recordingTracer().tracer,
      meter,
      spanPrefix: 'keyhold.mcp.',
    });
    tracing.start('post', 'demo')({ status: 200 });
    tracing.start('post', 'demo')({ status: 401 });
    const { resourceMetrics } = await reader.collect();
    const histogram = resourceMetrics.scopeMetrics
      .flatMap((scope) => scope.metrics)
      .find((metric) => metric.descriptor.name === 'keyhold.request.duration');
    const points = (histogram?.dataPoints ?? []) as DataPoint<Histogram>[];
    expect(points.map((point) => [point.attributes, point.value.count])).toEqual(
      expect.arrayContaining([
        [{ 'keyhold.endpoint': 'keyhold.mcp.post', 'http.response.status_code': 200 }, 1],
        [{ 'keyhold.endpoint': 'keyhold.mcp.post', 'http.response.status_code': 401 }, 1],
      ]),
    );
    expect(histogram?.descriptor.unit).toBe('s');
  });
});
