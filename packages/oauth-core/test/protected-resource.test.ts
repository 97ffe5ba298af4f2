import { describe, expect, it } from 'vitest';
import { OAuthCoreError } from '../src/index.js';
import { BASE_URL, createTestServer, decodePayload, ISSUER, provisionClient, RESOURCE } from './helpers.js';

const APP_RESOURCE = 'https://auth.example/mcp';

async function machineToken(
  t: Awaited<ReturnType<typeof createTestServer>>,
  form: Record<string, string> = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  const client = await provisionClient(t.server, { grantTypes: ['client_credentials'], scope: 'mcp:tools' });
  const response = await t.server.fetch(
    new Request(`${ISSUER}/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${btoa(`${client.client_id}:${client.client_secret}`)}`,
      },
      body: new URLSearchParams({ grant_type: 'client_credentials', ...form }),
    }),
  );
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('protectedResource describes the tenant resource: URL, metadata location and document, realm', () => {
  it('defaults to {issuer}{resourcePath}, with its RFC 9728 location and the tenant slug as realm', async () => {
    const t = await createTestServer({ tenant: { resourceScopes: ['files:read'] } });
    const resource = t.server.protectedResource('demo');
    expect(resource.url).toBe(RESOURCE);
    expect(resource.wellKnownUrl).toBe(`${BASE_URL}/.well-known/oauth-protected-resource/tenant/demo/mcp`);
    expect(resource.realm).toBe('demo');
    expect(await resource.metadata()).toEqual({
      resource: RESOURCE,
      authorization_servers: [ISSUER],
      bearer_methods_supported: ['header'],
      scopes_supported: ['openid', 'files:read'],
      dpop_signing_alg_values_supported: ['ES256', 'ES384', 'ES512', 'PS256', 'RS256', 'EdDSA', 'Ed25519'],
      dpop_bound_access_tokens_required: false,
    });
  });

  it('reads the required scopes from the tenant configuration when a request is verified', async () => {
    const t = await createTestServer();
    const resource = t.server.protectedResource('demo');
    t.tenant.resourceScopes = ['files:read'];
    const check = await resource.verify(undefined);
    expect(check.ok).toBe(false);
    if (check.ok) return;
    expect(check.result.headers['www-authenticate']).toBe(
      `Bearer realm="demo", resource_metadata="${resource.wellKnownUrl}", scope="files:read", ` +
        `DPoP realm="demo", resource_metadata="${resource.wellKnownUrl}", algs="ES256 ES384 ES512 PS256 RS256 EdDSA Ed25519", scope="files:read"`,
    );
  });

  it('answers an unknown tenant 404 (verify) and undefined (metadata)', async () => {
    const t = await createTestServer();
    const resource = t.server.protectedResource('nobody');
    expect((await resource.verify('Bearer x')).ok).toBe(false);
    const check = await resource.verify('Bearer x');
    if (!check.ok) expect(check.result.status).toBe(404);
    expect(await resource.metadata()).toBeUndefined();
  });
});

describe('protectedResource at a URL of the host’s choosing: the tenant issues tokens for it', () => {
  it('places its metadata at the RFC 9728 location of that URL', async () => {
    const t = await createTestServer();
    const resource = t.server.protectedResource('demo', { url: APP_RESOURCE });
    expect(resource.wellKnownUrl).toBe(`${BASE_URL}/.well-known/oauth-protected-resource/mcp`);
    expect((await resource.metadata())?.resource).toBe(APP_RESOURCE);
  });

  it('is the default audience when it is the tenant’s only resource, and its verify accepts the token', async () => {
    const t = await createTestServer();
    const resource = t.server.protectedResource('demo', { url: APP_RESOURCE, allowMachineSubjects: true });
    const issued = await machineToken(t);
    expect(issued.status).toBe(200);
    expect(decodePayload(String(issued.body.access_token)).aud).toBe(APP_RESOURCE);
    const check = await resource.verify(`Bearer ${issued.body.access_token}`);
    expect(check.ok).toBe(true);
    if (check.ok) expect(check.authInfo.resource?.href).toBe(APP_RESOURCE);
  });

  it('is accepted as an RFC 8707 resource, and the location under the issuer is no longer issued for', async () => {
    const t = await createTestServer();
    t.server.protectedResource('demo', { url: APP_RESOURCE });
    expect((await machineToken(t, { resource: APP_RESOURCE })).status).toBe(200);
    const refused = await machineToken(t, { resource: RESOURCE });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe('invalid_target');
  });

  it('refuses machine subjects unless the resource allows them', async () => {
    const t = await createTestServer();
    const resource = t.server.protectedResource('demo', { url: APP_RESOURCE });
    const check = await resource.verify(`Bearer ${(await machineToken(t)).body.access_token}`);
    expect(check.ok).toBe(false);
    if (!check.ok) expect(check.result.status).toBe(403);
  });

  it.each([
    ['a relative URL', '/mcp'],
    ['a query', 'https://auth.example/mcp?x=1'],
    ['a fragment', 'https://auth.example/mcp#x'],
    ['another scheme', 'ftp://auth.example/mcp'],
  ])('refuses %s with ERR_INVALID_OPTIONS', async (_, url) => {
    const t = await createTestServer();
    expect(() => t.server.protectedResource('demo', { url })).toThrow(OAuthCoreError);
  });
});
