import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeRequestUrl } from '../../../test-support/code-request-url.js';
import { readConfig } from '../src/config.js';
import { type HostProcess, startHost } from './host-process.js';
import { fetchMetadataAndRegister, METADATA_AND_REGISTRATION_POINTS } from './otel/counted-requests.js';

// What an OTLP/HTTP JSON export carries, as far as the test reads it.
interface OtlpValue {
  stringValue?: string;
  intValue?: number | string;
  boolValue?: boolean;
}
interface OtlpPoint {
  attributes?: { key: string; value: OtlpValue }[];
  asInt?: number | string;
  asDouble?: number;
}
interface OtlpExport {
  resourceMetrics: {
    scopeMetrics: { metrics: { name: string; sum?: { dataPoints: OtlpPoint[] } }[] }[];
  }[];
}
type Attributes = Record<string, string | number | boolean>;

const CLIENT_ID = 'https://client.example/oauth/client-metadata.json';

/** A fake OpenTelemetry collector: every export posted to /v1/metrics, as received. */
let collector: Server;
const exports: { path: string; contentType: string; body: OtlpExport }[] = [];
let documentServer: Server;
let host: HostProcess | undefined;

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

beforeAll(async () => {
  collector = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
    });
    req.on('end', () => {
      exports.push({
        path: req.url ?? '',
        contentType: req.headers['content-type'] ?? '',
        body: JSON.parse(body) as OtlpExport,
      });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  documentServer = createServer((req, res) => {
    if (req.url !== '/oauth/client-metadata.json') return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=300' });
    res.end(
      JSON.stringify({
        client_id: CLIENT_ID,
        client_name: 'metrics e2e client',
        redirect_uris: ['http://127.0.0.1:1/callback'],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      }),
    );
  });
  const [collectorPort, documentPort] = await Promise.all([listen(collector), listen(documentServer)]);
  host = await startHost({
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${collectorPort}`,
    OTEL_METRIC_EXPORT_INTERVAL: '200',
    KEYHOLD_CIMD_DOMAINS: 'client.example',
    KEYHOLD_CIMD_DEV_REWRITE: `https://client.example=http://127.0.0.1:${documentPort}`,
  });
});
afterAll(async () => {
  await host?.stop({ removeData: true });
  await Promise.all([collector, documentServer].map((server) => new Promise((r) => server?.close(r))));
});

function attributesOf(point: OtlpPoint): Attributes {
  const attributes: Attributes = {};
  for (const { key, value } of point.attributes ?? []) {
    attributes[key] = value.stringValue ?? value.boolValue ?? Number(value.intValue);
  }
  return attributes;
}

/** The points of `name` in the newest export that has it (counters are cumulative: the newest holds all). */
function latestPoints(name: string): { attributes: Attributes; value: number }[] {
  for (const { body } of [...exports].reverse()) {
    const metric = body.resourceMetrics
      .flatMap((resource) => resource.scopeMetrics)
      .flatMap((scope) => scope.metrics)
      .find((candidate) => candidate.name === name);
    if (metric?.sum) {
      return metric.sum.dataPoints.map((point) => ({
        attributes: attributesOf(point),
        value: Number(point.asInt ?? point.asDouble),
      }));
    }
  }
  return [];
}

async function waitForPoints(
  name: string,
  until: (points: { attributes: Attributes; value: number }[]) => boolean,
): Promise<{ attributes: Attributes; value: number }[]> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const points = latestPoints(name);
    if (until(points)) return points;
    if (Date.now() > deadline) {
      throw new Error(`${name} not exported: ${JSON.stringify(points)}\n${host?.output()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('the example host exports its counters to the OTLP/HTTP collector OTEL_EXPORTER_OTLP_ENDPOINT names', () => {
  it('pushes mcp_auth.events with endpoint, status and client type to /v1/metrics as OTLP JSON', async () => {
    await fetchMetadataAndRegister(host!.url);
    const points = await waitForPoints('mcp_auth.events', (found) =>
      found.some((point) => point.attributes['endpoint'] === 'register'),
    );
    expect(points).toEqual(expect.arrayContaining([...METADATA_AND_REGISTRATION_POINTS]));
    expect(exports[0]?.path).toBe('/v1/metrics');
    expect(exports[0]?.contentType).toContain('application/json');
  });

  it('pushes mcp_auth.cimd.fetches with status and cached when a metadata-document client is fetched', async () => {
    const authorize = codeRequestUrl(
      `${host!.url}/tenant/demo/authorize`,
      CLIENT_ID,
      'http://127.0.0.1:1/callback',
      {
        scope: 'mcp:tools',
        resource: `${host!.url}/tenant/demo/mcp`,
      },
    );
    const answer = await fetch(authorize, { redirect: 'manual' });
    expect(answer.status).toBeLessThan(400);
    const points = await waitForPoints('mcp_auth.cimd.fetches', (found) => found.length > 0);
    expect(points).toContainEqual({ attributes: { status: 'success', cached: false }, value: 1 });
  });
});

describe('the export is off unless an OTLP endpoint is configured', () => {
  it('reads no endpoint as off, either endpoint variable as on, OTEL_SDK_DISABLED=true as off, and refuses a protocol other than http/json', () => {
    expect(readConfig({}, '/').otlpMetrics).toBeUndefined();
    expect(readConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, '/').otlpMetrics).toEqual({
      exportIntervalMs: 60_000,
    });
    expect(
      readConfig(
        { OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: 'http://c/v1/metrics', OTEL_METRIC_EXPORT_INTERVAL: '5000' },
        '/',
      ).otlpMetrics,
    ).toEqual({ exportIntervalMs: 5000 });
    expect(
      readConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' }, '/')
        .otlpMetrics,
    ).toBeUndefined();
    expect(() =>
      readConfig(
        { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4317', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' },
        '/',
      ),
    ).toThrow(/http\/json/);
    expect(
      readConfig(
        { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' },
        '/',
      ).otlpMetrics,
    ).toBeDefined();
  });

  it('a host with OTEL_SDK_DISABLED=true sends nothing to the endpoint it names', async () => {
    let received = 0;
    const silent = createServer((_req, res) => {
      received += 1;
      res.writeHead(200).end('{}');
    });
    const port = await listen(silent);
    const quiet = await startHost({
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
      OTEL_METRIC_EXPORT_INTERVAL: '100',
      OTEL_SDK_DISABLED: 'true',
    });
    try {
      expect((await fetch(`${quiet.url}/.well-known/oauth-authorization-server/tenant/demo`)).status).toBe(
        200,
      );
      await new Promise((resolve) => setTimeout(resolve, 600));
    } finally {
      await quiet.stop({ removeData: true });
      await new Promise((resolve) => silent.close(resolve));
    }
    expect(received).toBe(0);
  });
});
