import { createManualClock } from '@keyhold/core';
import { describe, expect, it } from 'vitest';
import { createMcpEndpoint } from '../src/index.js';
import { notes, signTestToken, testAuthorizationServer } from './fixtures.js';
import { listToolsRequest } from './helpers.js';

const BASE = 'http://127.0.0.1:8787';

function tokenFor(tenant: string, scope = 'mcp:tools'): string {
  const now = Math.floor(Date.now() / 1000);
  return signTestToken({
    iss: `${BASE}/tenant/${tenant}`,
    sub: 'alice',
    aud: `${BASE}/tenant/${tenant}/mcp`,
    client_id: 'client-a',
    scope,
    jti: `${tenant}-${scope}`,
    iat: now,
    exp: now + 600,
  });
}

function endpointForEveryTenant() {
  const clock = createManualClock(Date.now());
  const server = testAuthorizationServer(clock, {
    extraTenants: { other: { resourceScopes: ['files:read'] } },
  });
  return createMcpEndpoint({
    authorizationServer: server,
    serverInfo: { name: 'multi', version: '1.0.0' },
    toolModules: [notes],
  });
}

describe('authorizationServer: every tenant resource at {base}/tenant/<slug>/mcp, the tenant from the path', () => {
  it('owns each tenant resource path and its metadata path, nothing else', () => {
    const endpoint = endpointForEveryTenant();
    expect(endpoint.ownsPath('/tenant/demo/mcp')).toBe(true);
    expect(endpoint.ownsPath('/tenant/other/mcp')).toBe(true);
    expect(endpoint.ownsPath('/.well-known/oauth-protected-resource/tenant/demo/mcp')).toBe(true);
    expect(endpoint.ownsPath('/tenant/demo/token')).toBe(false);
    expect(endpoint.ownsPath('/mcp')).toBe(false);
  });

  it("serves two tenants, each with its own audience and its own tenant's scopes", async () => {
    const endpoint = endpointForEveryTenant();
    const demo = await endpoint.fetch(
      listToolsRequest({ authorization: `Bearer ${tokenFor('demo')}` }, `${BASE}/tenant/demo/mcp`),
    );
    expect(demo.status).toBe(200);
    const other = await endpoint.fetch(
      listToolsRequest(
        { authorization: `Bearer ${tokenFor('other', 'files:read')}` },
        `${BASE}/tenant/other/mcp`,
      ),
    );
    expect(other.status).toBe(200);
    // A demo token at the other tenant's resource: another issuer, another audience.
    const crossed = await endpoint.fetch(
      listToolsRequest({ authorization: `Bearer ${tokenFor('demo')}` }, `${BASE}/tenant/other/mcp`),
    );
    expect(crossed.status).toBe(401);
    expect(crossed.headers.get('www-authenticate')).toContain('realm="other"');
    expect(crossed.headers.get('www-authenticate')).toContain('scope="files:read"');
  });

  it('answers 404 for an unknown tenant', async () => {
    const endpoint = endpointForEveryTenant();
    const response = await endpoint.fetch(
      listToolsRequest({ authorization: `Bearer ${tokenFor('demo')}` }, `${BASE}/tenant/nobody/mcp`),
    );
    expect(response.status).toBe(404);
  });
});
