import { describe, expect, it } from 'vitest';
import { scopeCovers } from '../src/index.js';
import { fakeVerifier } from './fixtures.js';
import { inProcessEndpoint, listToolsRequest, toolNames } from './helpers.js';

const METADATA = 'http://127.0.0.1:8787/.well-known/oauth-protected-resource/mcp';

const challengeOf = (response: Response): string => response.headers.get('www-authenticate') ?? '';

describe('RFC 6750 §3 / RFC 9728 §5.1: a request without a valid token gets a 401 challenge', () => {
  // RFC 6750 §3.1: no authentication information, no error code (a DPoP scheme is not Bearer credentials).
  it.each([
    ['no token is sent', ''],
    ['a DPoP authorization scheme is sent', 'DPoP eyJhbGciOiJFUzI1NiJ9.e30.sig'],
  ])(
    'names the resource metadata URL and the scope needed, and no error code, when %s',
    async (_, header) => {
      const { endpoint } = inProcessEndpoint();
      const response = await endpoint.fetch(listToolsRequest({ authorization: header }));
      expect(response.status).toBe(401);
      expect(challengeOf(response)).toBe(
        'Bearer realm="http://127.0.0.1:8787", resource_metadata="http://127.0.0.1:8787/.well-known/oauth-protected-resource/mcp", scope="mcp:tools"',
      );
      expect(challengeOf(response)).not.toContain('error');
      expect(response.headers.get('cache-control')).toBe('no-store');
    },
  );

  it('a bad token gets error="invalid_token" in the challenge', async () => {
    const { endpoint } = inProcessEndpoint();
    const response = await endpoint.fetch(listToolsRequest({ authorization: 'Bearer forged' }));
    expect(challengeOf(response)).toContain('error="invalid_token"');
  });

  it('refuses a token the verifier does not accept with 401 invalid_token', async () => {
    const { endpoint } = inProcessEndpoint();
    const response = await endpoint.fetch(listToolsRequest({ authorization: 'Bearer forged' }));
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({
      error: 'invalid_token',
      error_description: 'the token is not known',
    });
  });

  it('refuses a malformed Authorization header with 401', async () => {
    const { endpoint } = inProcessEndpoint();
    const response = await endpoint.fetch(listToolsRequest({ authorization: 'Basic abc' }));
    expect(response.status).toBe(401);
  });

  it('refuses a token whose expiry has passed by the injected clock', async () => {
    const issuedAt = Date.now();
    const verifier = {
      verifyAccessToken: async () => ({
        token: 't',
        clientId: 'c',
        scopes: ['mcp:tools'],
        expiresAt: Math.floor(issuedAt / 1000) + 60,
        extra: { sub: 'alice' },
      }),
    };
    const { endpoint, clock } = inProcessEndpoint({
      authentication: { verifier, resourceMetadataUrl: METADATA },
    });
    clock.set(issuedAt);
    expect((await endpoint.fetch(listToolsRequest())).status).toBe(200);
    clock.set(issuedAt + 61_000);
    expect((await endpoint.fetch(listToolsRequest())).status).toBe(401);
  });

  it('answers an outage of the verifier with 500, never a 401 that would send the client to log in', async () => {
    const { endpoint } = inProcessEndpoint();
    const response = await endpoint.fetch(listToolsRequest({ authorization: 'Bearer outage-token' }));
    expect(response.status).toBe(500);
    expect(JSON.stringify(await response.json())).not.toContain('database');
  });
});

describe('resource policy: the tool scope is required, machine subjects are refused by default', () => {
  it('refuses a token without the tool scope with 403 insufficient_scope naming every scope needed', async () => {
    const { endpoint } = inProcessEndpoint({
      authentication: {
        verifier: fakeVerifier({ now: () => Date.now() }),
        resourceMetadataUrl: METADATA,
        requiredScopes: ['mcp:tools', 'mcp:admin', 'offline_access'],
      },
    });
    const response = await endpoint.fetch(listToolsRequest({ authorization: 'Bearer no-scope-token' }));
    expect(response.status).toBe(403);
    expect(challengeOf(response)).toContain('error="insufficient_scope"');
    expect(challengeOf(response)).toContain('scope="mcp:tools mcp:admin"');
    expect(challengeOf(response)).not.toContain('offline_access');
  });

  it('accepts a parent scope for a child scope (mcp covers mcp:tools)', async () => {
    const { endpoint } = inProcessEndpoint();
    const response = await endpoint.fetch(listToolsRequest({ authorization: 'Bearer parent-scope-token' }));
    expect(response.status).toBe(200);
    expect(await toolNames(response)).toEqual(['echo', 'list_repos']);
  });

  // Not insufficient_scope naming a scope the token holds: both MCP SDKs would step up to an identical token.
  it('refuses a client_credentials token (machine subject) with 403 invalid_token and no scope hint', async () => {
    const { endpoint } = inProcessEndpoint();
    const response = await endpoint.fetch(listToolsRequest({ authorization: 'Bearer machine-token' }));
    expect(response.status).toBe(403);
    expect(challengeOf(response)).toContain('error="invalid_token"');
    expect(challengeOf(response)).toContain('error_description="machine clients are not accepted');
    expect(challengeOf(response)).not.toContain('insufficient_scope');
    expect(challengeOf(response)).not.toContain('scope=');
  });

  it('accepts machine subjects when the host allows them', async () => {
    const { endpoint } = inProcessEndpoint({
      authentication: {
        verifier: fakeVerifier({ now: () => Date.now() }),
        resourceMetadataUrl: METADATA,
        allowMachineSubjects: true,
      },
    });
    const response = await endpoint.fetch(listToolsRequest({ authorization: 'Bearer machine-token' }));
    expect(response.status).toBe(200);
  });

  it('ignores an AuthInfo a caller tries to pass in: only the bearer token counts', async () => {
    const { endpoint } = inProcessEndpoint();
    const request = listToolsRequest({ authorization: '' });
    const response = await endpoint.fetch(request, {
      authInfo: { token: 'x', clientId: 'evil', scopes: ['mcp:tools'], extra: { sub: 'alice' } },
    } as never);
    expect(response.status).toBe(401);
  });
});

describe('scope hierarchy', () => {
  it('covers equal scopes and children after a colon only', () => {
    expect(scopeCovers('mcp:tools', 'mcp:tools')).toBe(true);
    expect(scopeCovers('mcp', 'mcp:tools')).toBe(true);
    expect(scopeCovers('mcp', 'mcpx')).toBe(false);
    expect(scopeCovers('mcp:tools', 'mcp')).toBe(false);
  });
});
