import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readConfig } from '../src/config.js';
import { type HostProcess, startHost } from './host-process.js';

let host: HostProcess;
beforeAll(async () => {
  host = await startHost({ KEYHOLD_CONFIDENTIAL_TENANT: 'confidential' });
});
afterAll(async () => {
  await host?.stop({ removeData: true });
});

async function metadata(tenant: string): Promise<Record<string, unknown>> {
  const response = await fetch(`${host.url}/.well-known/oauth-authorization-server/tenant/${tenant}`);
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, unknown>;
}

function register(tenant: string, method: string): Promise<Response> {
  return fetch(`${host.url}/tenant/${tenant}/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      redirect_uris: ['http://127.0.0.1:1/callback'],
      token_endpoint_auth_method: method,
    }),
  });
}

describe('KEYHOLD_CONFIDENTIAL_TENANT: a tenant without public clients', () => {
  it('advertises client_secret_basic and private_key_jwt only, while demo keeps `none`', async () => {
    const confidential = await metadata('confidential');
    expect(confidential.issuer).toBe(`${host.url}/tenant/confidential`);
    expect(confidential.token_endpoint_auth_methods_supported).toEqual([
      'client_secret_basic',
      'private_key_jwt',
    ]);
    expect((await metadata('demo')).token_endpoint_auth_methods_supported).toContain('none');
  });

  it('registers confidential clients and refuses public ones', async () => {
    const refused = await register('confidential', 'none');
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: 'invalid_client_metadata' });
    const created = await register('confidential', 'client_secret_basic');
    expect(created.status).toBe(201);
    expect(await created.json()).toHaveProperty('client_secret');
    expect((await register('demo', 'none')).status).toBe(201);
  });

  it('takes a tenant slug other than demo and provider', () => {
    expect(readConfig({ KEYHOLD_CONFIDENTIAL_TENANT: 'confidential' }, '/').confidentialTenant).toBe(
      'confidential',
    );
    expect(readConfig({}, '/').confidentialTenant).toBeUndefined();
    for (const bad of ['demo', 'provider', 'no/slash', '-x']) {
      expect(() => readConfig({ KEYHOLD_CONFIDENTIAL_TENANT: bad }, '/')).toThrow(
        /KEYHOLD_CONFIDENTIAL_TENANT/,
      );
    }
  });

  it('is absent unless configured', async () => {
    const plain = await startHost();
    try {
      const response = await fetch(`${plain.url}/.well-known/oauth-authorization-server/tenant/confidential`);
      expect(response.status).toBe(404);
    } finally {
      await plain.stop({ removeData: true });
    }
  });
});
