import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HostProcess, startHost } from './host-process.js';

let host: HostProcess;
beforeAll(async () => {
  host = await startHost();
});
afterAll(async () => {
  await host?.stop({ removeData: true });
});

describe('the example host, started as the README starts it', () => {
  it('prints the URL it listens on and answers /health', async () => {
    expect(host.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const response = await fetch(`${host.url}/health`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok' });
  });

  it('prints the connected-apps page in its start banner, and serves it there', async () => {
    const url = `${host.url}/tenant/demo/connected-apps`;
    // The banner's lines follow the "listening on" line that startHost waits for.
    for (let waited = 0; !host.output().includes('Connected apps:') && waited < 5000; waited += 50) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(host.output()).toContain(`  Connected apps: ${url}\n`);
    const response = await fetch(url);
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('No application is connected to your account.');
  });

  it('answers an unknown path with 404 JSON', async () => {
    const response = await fetch(`${host.url}/nope`);
    expect(response.status).toBe(404);
  });

  it.each([
    '/.well-known/oauth-authorization-server/tenant/demo',
    '/tenant/demo/.well-known/oauth-authorization-server',
    '/.well-known/openid-configuration/tenant/demo',
    '/tenant/demo/.well-known/openid-configuration',
  ])('serves authorization-server metadata at %s with the one exact issuer', async (path) => {
    const response = await fetch(`${host.url}${path}`);
    expect(response.status).toBe(200);
    const metadata = (await response.json()) as { issuer: string; jwks_uri: string };
    expect(metadata.issuer).toBe(`${host.url}/tenant/demo`);
    expect(metadata.jwks_uri).toBe(`${host.url}/tenant/demo/.well-known/jwks.json`);
  });

  it.each([
    '/.well-known/oauth-protected-resource/tenant/demo/mcp',
    '/tenant/demo/.well-known/oauth-protected-resource',
  ])('serves protected-resource metadata at %s', async (path) => {
    const response = await fetch(`${host.url}${path}`);
    expect(await response.json()).toMatchObject({
      resource: `${host.url}/tenant/demo/mcp`,
      authorization_servers: [`${host.url}/tenant/demo`],
      bearer_methods_supported: ['header'],
    });
  });

  it('publishes the tenant signing key as a JWKS', async () => {
    const jwks = (await (await fetch(`${host.url}/tenant/demo/.well-known/jwks.json`)).json()) as {
      keys: { kid: string }[];
    };
    expect(jwks.keys.map((k) => k.kid)).toEqual(['demo-1']);
  });
});
