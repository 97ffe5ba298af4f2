import { describe, expect, it } from 'vitest';
import { generateSigningKey } from '../src/index.js';
import {
  basic,
  createTestServer,
  decodePayload,
  exchangeCode,
  ISSUER,
  json,
  obtainCode,
  postForm,
  provisionClient,
  RESOURCE,
  registerClient,
} from './helpers.js';

const METADATA = 'https://auth.example/.well-known/oauth-protected-resource/tenant/demo/mcp';

async function setup() {
  const t = await createTestServer();
  const client = await registerClient(t.server, { token_endpoint_auth_method: 'none' });
  const { code, verifier } = await obtainCode(t, client.client_id, { scope: 'mcp:tools files:read' });
  const access = String(json(await exchangeCode(t, client, code, verifier)).access_token);
  return { t, access };
}

const DPOP_ALGS = 'ES256 ES384 ES512 PS256 RS256 EdDSA Ed25519';

describe('verifyAccessToken: missing or bad token → 401 with WWW-Authenticate', () => {
  // RFC 6750 §3.1: a request without authentication information gets a challenge with no error code.
  it.each([
    ['no Authorization header', undefined],
    ['an empty Authorization header', ''],
    ['a Basic scheme', 'Basic abc'],
  ])('%s gets the challenge with realm, resource_metadata and scope but no error code', async (_, header) => {
    const { t } = await setup();
    const check = await t.server.verifyAccessToken('demo', header);
    expect(check.ok).toBe(false);
    if (check.ok) return;
    expect(check.result.status).toBe(401);
    // MCP: the 401 names the scopes the resource needs, so a client asks for them the first time.
    // Then the DPoP challenge (RFC 9449 §7.1): DPoP is on with the memory storage's spend-once store.
    expect(check.result.headers['www-authenticate']).toBe(
      `Bearer realm="demo", resource_metadata="${METADATA}", scope="mcp:tools", ` +
        `DPoP realm="demo", resource_metadata="${METADATA}", algs="${DPOP_ALGS}", scope="mcp:tools"`,
    );
    expect(json(check.result).error).toBeUndefined();
  });

  it.each([
    ['a Bearer header without a well-formed token', 'Bearer a b'],
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
    const check = await t.server.verifyAccessToken('demo', `Bearer ${access}`, {
      requiredScopes: ['files:read'],
    });
    expect(check.ok && check.claims).toMatchObject({
      sub: 'user-1',
      aud: RESOURCE,
      scope: 'files:read mcp:tools',
    });
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
    // Every scope the operation needs: the tenant's resource scope and the extra one.
    expect(check.result.headers['www-authenticate']).toContain('scope="mcp:tools files:write"');
  });
});

async function tokenWithScope(
  scope: string | undefined,
  tenant: Parameters<typeof createTestServer>[0] = {},
) {
  const t = await createTestServer(tenant);
  const client = await registerClient(t.server, { token_endpoint_auth_method: 'none' });
  const { code, verifier } = await obtainCode(t, client.client_id, scope === undefined ? {} : { scope });
  const body = json(await exchangeCode(t, client, code, verifier));
  return { t, access: String(body.access_token), scope: body.scope };
}

describe("verifyAccessToken: the tenant's resource scopes are required by default (resourceScopes)", () => {
  it.each([
    ['only profile', 'profile'],
    ['an empty scope', ' '],
    ['offline_access only', 'offline_access'],
  ])('a token with %s is 403 insufficient_scope naming mcp:tools', async (_, scope) => {
    const { t, access } = await tokenWithScope(scope);
    const check = await t.server.verifyAccessToken('demo', `Bearer ${access}`);
    expect(check.ok).toBe(false);
    if (check.ok) return;
    expect(check.result.status).toBe(403);
    const challenge = check.result.headers['www-authenticate'] ?? '';
    expect(challenge).toContain('error="insufficient_scope"');
    expect(challenge).toContain('scope="mcp:tools"');
    expect(challenge).not.toContain('offline_access');
  });

  it('a client that asks for no scope is granted the resource scopes (RFC 6749 §3.3 default) and gets in', async () => {
    const { t, access, scope } = await tokenWithScope(undefined);
    expect(scope).toBe('mcp:tools');
    expect((await t.server.verifyAccessToken('demo', `Bearer ${access}`)).ok).toBe(true);
  });

  it('a tenant sets its own resourceScopes; [] requires none', async () => {
    const custom = await tokenWithScope('tools:run', { tenant: { resourceScopes: ['tools:run'] } });
    expect((await custom.t.server.verifyAccessToken('demo', `Bearer ${custom.access}`)).ok).toBe(true);
    const none = await tokenWithScope(' ', { tenant: { resourceScopes: [] } });
    expect((await none.t.server.verifyAccessToken('demo', `Bearer ${none.access}`)).ok).toBe(true);
  });

  it('offline_access is never required nor named in a challenge', async () => {
    const { t, access } = await tokenWithScope('profile');
    const check = await t.server.verifyAccessToken('demo', `Bearer ${access}`, {
      requiredScopes: ['offline_access', 'files:read'],
    });
    expect(!check.ok && check.result.headers['www-authenticate']).toContain('scope="mcp:tools files:read"');
    expect(!check.ok && check.result.headers['www-authenticate']).not.toContain('offline_access');
  });

  it('for another resource only requiredScopes apply', async () => {
    const t = await createTestServer({ tenant: { resources: ['https://api.example/', `${ISSUER}/mcp`] } });
    const client = await registerClient(t.server, { token_endpoint_auth_method: 'none' });
    const { code, verifier } = await obtainCode(t, client.client_id, {
      scope: 'profile',
      resource: 'https://api.example/',
    });
    const access = String(json(await exchangeCode(t, client, code, verifier)).access_token);
    expect(
      (await t.server.verifyAccessToken('demo', `Bearer ${access}`, { resource: 'https://api.example/' })).ok,
    ).toBe(true);
  });
});

describe('verifyAccessToken: machine subjects (client_credentials) are refused unless allowed', () => {
  async function machineToken() {
    const t = await createTestServer();
    const client = await provisionClient(t.server, {
      grantTypes: ['client_credentials'],
      scope: 'mcp:tools',
    });
    const body = json(
      await t.server.token(
        postForm(
          '/tenant/demo/token',
          { grant_type: 'client_credentials' },
          basic(client.client_id, client.client_secret ?? ''),
        ),
        'demo',
      ),
    );
    return { t, access: String(body.access_token), clientId: client.client_id };
  }

  // Not insufficient_scope naming a scope it holds: MCP clients would step up to an identical token.
  it('a client:<id> subject gets 403 invalid_token saying machine clients are not accepted, with no scope hint', async () => {
    const { t, access, clientId } = await machineToken();
    expect(decodePayload(access).sub).toBe(`client:${clientId}`);
    const check = await t.server.verifyAccessToken('demo', `Bearer ${access}`);
    expect(check.ok).toBe(false);
    if (check.ok) return;
    expect(check.result.status).toBe(403);
    const challenge = check.result.headers['www-authenticate'];
    expect(challenge).toContain('error="invalid_token"');
    expect(challenge).toContain('error_description="machine clients are not accepted');
    expect(challenge).not.toContain('insufficient_scope');
    expect(challenge).not.toContain('scope=');
    expect(json(check.result)).toMatchObject({ error: 'invalid_token' });
    expect(json(check.result).error_description).toMatch(/acts for users/);
  });

  it('allowMachineSubjects: true accepts it', async () => {
    const { t, access } = await machineToken();
    const check = await t.server.verifyAccessToken('demo', `Bearer ${access}`, {
      allowMachineSubjects: true,
    });
    expect(check.ok).toBe(true);
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
    expect(header).toMatch(/^Bearer realm="[\t\x20-\x7e]*"/);
    expect(header).toMatch(/^[\t\x20-\x7e]*$/);
  });

  it('an unknown tenant gets no error code without credentials (RFC 6750 §3.1), invalid_token with a token', async () => {
    const { t, access } = await setup();
    const without = await t.server.verifyAccessToken('nope', undefined);
    expect(!without.ok && without.result.headers['www-authenticate']).toBe('Bearer realm="nope"');
    const withToken = await t.server.verifyAccessToken('nope', `Bearer ${access}`);
    expect(!withToken.ok && withToken.result.status).toBe(401);
    expect(!withToken.ok && withToken.result.headers['www-authenticate']).toBe(
      'Bearer realm="nope", error="invalid_token", error_description="unknown tenant"',
    );
  });
});
