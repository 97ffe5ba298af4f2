import { createManualClock } from '@keyhold/core';
import { metrics as globalMetrics } from '@opentelemetry/api';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { REGISTRATION_POINT } from '../../../../test-support/metric-points.js';
import { createAuthorizationServerWithEndpoints } from '../../src/authorization-server.js';
import { createCimdResolver } from '../../src/cimd/resolver.js';
import type { TenantConfig } from '../../src/index.js';
import { createMemoryStorage, generateSigningKey } from '../../src/index.js';
import type { MetricsApi } from '../../src/metrics/when-present.js';
import { createMetricsWhenPresent, metricsWhenPresent } from '../../src/metrics/when-present.js';
import { createOpenTelemetryMetrics } from '../../src/opentelemetry.js';
import type { TestServer } from '../helpers.js';
import { BASE_URL, obtainCode, registerClient } from '../helpers.js';
import { read, TestReader } from './metric-reader.js';

/** The host's usual set-up: the OpenTelemetry SDK registered as the global meter provider. */
function registerGlobalReader(): TestReader {
  const reader = new TestReader();
  expect(globalMetrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }))).toBe(true);
  return reader;
}

/** A server built the way a host without any metrics option builds it. */
async function serverWithoutMetricsOption(
  extra: { metrics?: ReturnType<typeof createOpenTelemetryMetrics> | false } = {},
): Promise<TestServer> {
  const storage = createMemoryStorage();
  const clock = createManualClock(Date.parse('2026-03-01T12:00:00Z'));
  const tenant = { signingKeys: [await generateSigningKey('ES256', 'k1')] } as TestServer['tenant'];
  const server = createAuthorizationServerWithEndpoints({
    baseUrl: BASE_URL,
    tenants: { get: (slug): TenantConfig | undefined => (slug === 'demo' ? tenant : undefined) },
    storage,
    clock,
    ...extra,
  });
  return { server, storage, clock, tenant, events: [] };
}

const clientId = 'https://app.example/client.json';
const documents = setupServer(
  http.get(clientId, () =>
    HttpResponse.json({ client_id: clientId, client_name: 'App', redirect_uris: ['https://app.example/cb'] }),
  ),
);
beforeAll(() => documents.listen({ onUnhandledRequest: 'error' }));
afterAll(() => documents.close());
afterEach(() => {
  globalMetrics.disable();
});

describe('with @opentelemetry/api installed, the counters are emitted without the metrics option', () => {
  it('counts an authorization and a CIMD fetch on the global meter provider', async () => {
    const reader = registerGlobalReader();
    const t = await serverWithoutMetricsOption();
    const client = await registerClient(t.server, { token_endpoint_auth_method: 'none' });
    await obtainCode(t, client.client_id);
    const resolver = createCimdResolver({ fetch: (url, init) => fetch(url, init) });
    expect((await resolver.resolve(clientId, { allowedDomains: ['app.example'] })).ok).toBe(true);
    await metricsWhenPresent.settled();

    const { resourceMetrics } = await reader.collect();
    expect(resourceMetrics.scopeMetrics.map((scope) => scope.scope.name)).toContain('@keyhold/oauth-core');
    expect(await read(reader, 'mcp_auth.events')).toEqual(
      expect.arrayContaining([
        REGISTRATION_POINT,
        {
          attributes: {
            endpoint: 'authorize',
            status: 302,
            client_type: 'registered',
            reason: 'authorize.consent_shown',
          },
          value: 1,
        },
        {
          attributes: {
            endpoint: 'consent',
            status: 302,
            client_type: 'registered',
            reason: 'consent.approved',
          },
          value: 1,
        },
      ]),
    );
    expect(await read(reader, 'mcp_auth.cimd.fetches')).toEqual([
      { attributes: { status: 'success', cached: false }, value: 1 },
    ]);
  });

  it('follows a meter provider the host registers after the server was created', async () => {
    const t = await serverWithoutMetricsOption();
    await registerClient(t.server, { token_endpoint_auth_method: 'none' });
    await metricsWhenPresent.settled();
    const reader = registerGlobalReader();
    await registerClient(t.server, { token_endpoint_auth_method: 'none' });
    expect(await read(reader, 'mcp_auth.events')).toEqual([REGISTRATION_POINT]);
  });

  it('keeps an explicit metrics option: the counts go there and not to the global provider', async () => {
    const globalReader = registerGlobalReader();
    const ownReader = new TestReader();
    const t = await serverWithoutMetricsOption({
      metrics: createOpenTelemetryMetrics({ meterProvider: new MeterProvider({ readers: [ownReader] }) }),
    });
    await registerClient(t.server, { token_endpoint_auth_method: 'none' });
    await metricsWhenPresent.settled();
    expect(await read(ownReader, 'mcp_auth.events')).toEqual([REGISTRATION_POINT]);
    expect(await read(globalReader, 'mcp_auth.events')).toEqual([]);
  });

  it('records nothing anywhere with metrics: false', async () => {
    const reader = registerGlobalReader();
    const t = await serverWithoutMetricsOption({ metrics: false });
    await registerClient(t.server, { token_endpoint_auth_method: 'none' });
    await metricsWhenPresent.settled();
    expect(await read(reader, 'mcp_auth.events')).toEqual([]);
  });
});

describe('the API is loaded once, lazily, and its absence is a silent no-op', () => {
  it('records nothing and never throws when @opentelemetry/api does not resolve', async () => {
    const missing = '@opentelemetry/not-installed';
    let loads = 0;
    const metrics = createMetricsWhenPresent(() => {
      loads += 1;
      return import(missing) as Promise<MetricsApi>;
    });
    expect(() => metrics.event({ endpoint: 'token', status: 200 })).not.toThrow();
    await expect(metrics.settled()).resolves.toBeUndefined();
    expect(() => metrics.cimdFetch({ status: 'error', cached: false, cimd_error: 'timeout' })).not.toThrow();
    await metrics.settled();
    expect(loads).toBe(1);
  });

  it('does not load before the first use, and counts made while loading are recorded once it resolves', async () => {
    const reader = registerGlobalReader();
    let release: (api: MetricsApi) => void = () => {};
    let loads = 0;
    const metrics = createMetricsWhenPresent(() => {
      loads += 1;
      return new Promise<MetricsApi>((resolve) => {
        release = resolve;
      });
    });
    expect(loads).toBe(0);
    metrics.event({ endpoint: 'jwks', status: 200 });
    metrics.event({ endpoint: 'jwks', status: 200 });
    await Promise.resolve();
    expect(await read(reader, 'mcp_auth.events')).toEqual([]);
    release({ metrics: globalMetrics });
    await metrics.settled();
    metrics.event({ endpoint: 'jwks', status: 200 });
    expect(loads).toBe(1);
    expect(await read(reader, 'mcp_auth.events')).toEqual([
      { attributes: { endpoint: 'jwks', status: 200 }, value: 3 },
    ]);
  });
});
