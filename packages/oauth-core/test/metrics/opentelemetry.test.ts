import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { metrics as globalMetrics } from '@opentelemetry/api';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCimdResolver } from '../../src/cimd/resolver.js';
import { createOpenTelemetryMetrics } from '../../src/opentelemetry.js';
import { read, TestReader } from './metric-reader.js';

function setup(): { reader: TestReader; metrics: ReturnType<typeof createOpenTelemetryMetrics> } {
  const reader = new TestReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  return { reader, metrics: createOpenTelemetryMetrics({ meterProvider }) };
}

describe('mcp_auth.events: one count per handler invocation, attributes only where they apply', () => {
  it('counts with endpoint, status, grant_type, client_type and error_code', async () => {
    const { reader, metrics } = setup();
    metrics.event({ endpoint: 'token', status: 200, grant_type: 'refresh_token', client_type: 'registered' });
    metrics.event({ endpoint: 'token', status: 200, grant_type: 'refresh_token', client_type: 'registered' });
    metrics.event({
      endpoint: 'token',
      status: 400,
      grant_type: 'authorization_code',
      error_code: 'invalid_grant',
    });
    metrics.event({ endpoint: 'jwks', status: 200 });
    const points = await read(reader, 'mcp_auth.events');
    expect(points).toHaveLength(3);
    expect(points).toEqual(
      expect.arrayContaining([
        {
          attributes: {
            endpoint: 'token',
            status: 200,
            grant_type: 'refresh_token',
            client_type: 'registered',
          },
          value: 2,
        },
        {
          attributes: {
            endpoint: 'token',
            status: 400,
            grant_type: 'authorization_code',
            error_code: 'invalid_grant',
          },
          value: 1,
        },
        { attributes: { endpoint: 'jwks', status: 200 }, value: 1 },
      ]),
    );
  });
});

describe('where the meter comes from', () => {
  it('defaults to the global meter provider the host registered, under the scope @keyhold/oauth-core', async () => {
    const reader = new TestReader();
    globalMetrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }));
    try {
      createOpenTelemetryMetrics().event({ endpoint: 'metadata', status: 200 });
      const { resourceMetrics } = await reader.collect();
      expect(resourceMetrics.scopeMetrics.map((scope) => scope.scope.name)).toEqual(['@keyhold/oauth-core']);
      expect(await read(reader, 'mcp_auth.events')).toEqual([
        { attributes: { endpoint: 'metadata', status: 200 }, value: 1 },
      ]);
    } finally {
      globalMetrics.disable();
    }
  });

  it('uses a given meter as it is', async () => {
    const reader = new TestReader();
    const meter = new MeterProvider({ readers: [reader] }).getMeter('host-meter');
    createOpenTelemetryMetrics({ meter }).cimdFetch({
      status: 'error',
      cached: false,
      cimd_error: 'timeout',
    });
    const { resourceMetrics } = await reader.collect();
    expect(resourceMetrics.scopeMetrics[0]?.scope.name).toBe('host-meter');
    expect(await read(reader, 'mcp_auth.cimd.fetches')).toEqual([
      { attributes: { status: 'error', cached: false, 'mcp_auth.cimd_error': 'timeout' }, value: 1 },
    ]);
  });
});

describe('mcp_auth.cimd.fetches: one count per resolution attempt', () => {
  const server = setupServer();
  beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
  afterAll(() => server.close());

  it('records status, cached and mcp_auth.cimd_error from a real resolver', async () => {
    const clientId = 'https://app.example/client.json';
    server.use(
      http.get(clientId, () =>
        HttpResponse.json({
          client_id: clientId,
          client_name: 'App',
          redirect_uris: ['https://app.example/cb'],
        }),
      ),
    );
    const { reader, metrics } = setup();
    const resolver = createCimdResolver({ fetch: (url, init) => fetch(url, init), metrics });
    await resolver.resolve(clientId, { allowedDomains: ['app.example'] });
    await resolver.resolve(clientId, { allowedDomains: ['app.example'] });
    await resolver.resolve(clientId, { allowedDomains: ['app.example'] });
    await resolver.resolve(clientId, { allowedDomains: [] });
    const points = await read(reader, 'mcp_auth.cimd.fetches');
    expect(points).toHaveLength(3);
    expect(points).toEqual(
      expect.arrayContaining([
        { attributes: { status: 'success', cached: false }, value: 1 },
        { attributes: { status: 'success', cached: true }, value: 2 },
        {
          attributes: { status: 'error', cached: false, 'mcp_auth.cimd_error': 'domain_not_allowed' },
          value: 1,
        },
      ]),
    );
  });
});

describe('@opentelemetry/api is an optional peer dependency; openid-client loads only with ./federated', () => {
  it('no module reachable from the main entry imports either statically; the API is imported lazily in one place', () => {
    const src = resolve(dirname(fileURLToPath(import.meta.url)), '../../src');
    const seen = new Set<string>();
    const offenders: string[] = [];
    const lazyImports: string[] = [];
    const visit = (file: string): void => {
      if (seen.has(file)) return;
      seen.add(file);
      const text = readFileSync(file, 'utf8');
      // `import type` is erased from the output, so only value imports and re-exports count.
      const code = text.replace(/^import type [^;]+;$/gm, '');
      if (/from\s+'(@opentelemetry\/|openid-client)|import\('openid-client/.test(code)) offenders.push(file);
      if (/import\('@opentelemetry\//.test(code)) lazyImports.push(file);
      for (const match of text.matchAll(/from\s+'(\.{1,2}\/[^']+)\.js'/g)) {
        visit(join(dirname(file), `${match[1]}.ts`));
      }
    };
    visit(join(src, 'index.ts'));
    expect(seen.size).toBeGreaterThan(5);
    expect(offenders).toEqual([]);
    // The default metrics, which load it on first use and stay silent when it is absent.
    expect(lazyImports).toEqual([join(src, 'metrics', 'when-present.ts')]);
    expect(readdirSync(join(src, 'metrics'))).toContain('opentelemetry.ts');
  });
});
