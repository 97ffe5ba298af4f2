import { describe, expect, it } from 'vitest';
import { generateSigningKey } from '../src/index.js';
import { createTestServer, exchangeCode, json, obtainCode, RESOURCE, registerClient } from './helpers.js';

const METADATA = 'https://auth.example/.well-known/oauth-protected-resource/tenant/demo/mcp';

async function setup() {
  const t = await createTestServer();
  const client = await registerClient(t.server, { token_endpoint_auth_method: 'none' });
  const { code, verifier } = await obtainCode(t, client.client_id, { scope: 'mcp files:read' });
  const access = String(json(await exchangeCode(t, client, code, verifier)).access_token);
  return { t, access };
}

describe('verifyAccessToken: missing or bad token → 401 with WWW-Authenticate', () => {
  it('a missing token gets the challenge with realm and resource_metadata', async () => {
    const { t } = await setup();
    const check = await t.server.verifyAccessToken('demo', undefined);
    expect(check.ok).toBe(false);
    if (check.ok) return;
    expect(check.result.status).toBe(401);
    expect(check.result.headers['www-authenticate']).toBe(
      `Bearer realm="demo", resource_metadata="${METADATA}", error="invalid_token", error_description="a bearer token is required"`,
    );
  });

  it.each([
    ['a non-Bearer scheme', 'Basic abc'],
    ['a garbage token', 'Bearer not-a-jwt'],
    ['a tampered token', 'TAMPER'],
  ])('%s gets invalid_token', async (_, header) => {
    const { t, access } = await setup();
    const value = header === 'TAMPER' ? `Bearer ${access.slice(0, -4)}AAAA` : header;
    const check = await t.server.verifyAccessToken('demo', value);
    expect(check.ok).toBe(false);
    if (!check.ok) {
      expect(check.result.status).toBe(401);
      expect(check.result.headers['www-authenticate']).toContain('error="invalid_token"');
    }
  });

  it('an expired token gets invalid_token saying so', async () => {
    const { t, access } = await setup();
    t.clock.advance(900_001);
    const check = await t.server.verifyAccessToken('demo', `Bearer ${access}`);
    expect(!check.ok && check.result.headers['www-authenticate']).toContain(
      'error_description="the access token has expired"',
    );
  });

  it('a token of another tenant (other issuer and keys) is refused', async () => {
    const { access } = await setup();
    const other = await createTestServer();
    other.tenant.signingKeys = [await generateSigningKey('ES256', 'k1')];
    expect((await other.server.verifyAccessToken('demo', `Bearer ${access}`)).ok).toBe(false);
  });

  it('a token for another audience is refused', async () => {
    const { t, access } = await setup();
    const check = await t.server.verifyAccessToken('demo', `Bearer ${access}`, {
      resource: 'https://other.example/api',
    });
    expect(check.ok).toBe(false);
  });
});

describe('verifyAccessToken: scopes', () => {
  it('returns the claims when every required scope is granted', async () => {
    const { t, access } = await setup();
    const check = await t.server.verifyAccessToken('demo', `Bearer ${access}`, { requiredScopes: ['mcp'] });
    expect(check.ok && check.claims).toMatchObject({ sub: 'user-1', aud: RESOURCE, scope: 'files:read mcp' });
  });

  it('a missing required scope is 403 insufficient_scope', async () => {
    const { t, access } = await setup();
    const check = await t.server.verifyAccessToken('demo', `Bearer ${access}`, {
      requiredScopes: ['files:write'],
    });
    expect(check.ok).toBe(false);
    if (check.ok) return;
    expect(check.result.status).toBe(403);
    expect(check.result.headers['www-authenticate']).toContain('error="insufficient_scope"');
    expect(check.result.headers['www-authenticate']).toContain('scope="files:write"');
  });
});

describe('verifyAccessToken: the challenge is a header Node can send, whatever the slug', () => {
  it.each([
    ['a NUL (from /tenant/%00/mcp)', '\u0000'],
    ['CR/LF', 'x\r\nSet-Cookie: a=1'],
    ['non-latin1 characters', 'tenant-😀'],
  ])('an unknown tenant slug with %s gets a printable-ASCII realm', async (_, slug) => {
    const { t } = await setup();
    const check = await t.server.verifyAccessToken(slug, undefined);
    expect(check.ok).toBe(false);
    if (check.ok) return;
    const header = check.result.headers['www-authenticate'] ?? '';
    expect(header).toMatch(/^Bearer realm="[\t\x20-\x7e]*", /);
    expect(header).toMatch(/^[\t\x20-\x7e]*$/);
  });
});
