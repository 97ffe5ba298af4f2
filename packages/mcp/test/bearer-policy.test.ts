import { describe, expect, it } from 'vitest';
import { testResource } from './fixtures.js';
import { inProcessEndpoint, listToolsRequest, PUBLIC_URL, toolNames } from './helpers.js';

const challengeOf = (response: Response): string => response.headers.get('www-authenticate') ?? '';

describe('RFC 6750 §3 / RFC 9728 §5.1: a request without a valid token gets a 401 challenge', () => {
  // RFC 6750 §3.1: no authentication information, no error code; the DPoP challenge follows (RFC 9449 §7.1).
  it('names the realm (tenant), the resource metadata URL and the scope needed, and no error code, when no token is sent', async () => {
    const { endpoint } = inProcessEndpoint();
    const response = await endpoint.fetch(listToolsRequest({ authorization: '' }));
    expect(response.status).toBe(401);
    const metadata = 'http://127.0.0.1:8787/.well-known/oauth-protected-resource/mcp';
    expect(challengeOf(response)).toBe(
      `Bearer realm="demo", resource_metadata="${metadata}", scope="mcp:tools", ` +
        `DPoP realm="demo", resource_metadata="${metadata}", algs="ES256 ES384 ES512 PS256 RS256 EdDSA Ed25519", scope="mcp:tools"`,
    );
    expect(response.headers.get('cache-control')).toBe('no-store');
  });

  it('refuses a DPoP scheme whose token is not one of the server with 401 invalid_token on the DPoP challenge', async () => {
    const { endpoint } = inProcessEndpoint();
    const response = await endpoint.fetch(
      listToolsRequest({ authorization: 'DPoP eyJhbGciOiJFUzI1NiJ9.e30.sig' }),
    );
    expect(response.status).toBe(401);
    const [bearer, dpop] = challengeOf(response).split(', DPoP ');
    expect(bearer).not.toContain('error=');
    expect(dpop).toContain('error="invalid_token"');
  });

  it('refuses a token the authorization server did not sign with 401 invalid_token', async () => {
    const { endpoint } = inProcessEndpoint();
    const response = await endpoint.fetch(listToolsRequest({ authorization: 'Bearer forged' }));
    expect(response.status).toBe(401);
    expect(challengeOf(response)).toContain('error="invalid_token"');
  });

  it('refuses a malformed Authorization header with 401', async () => {
    const { endpoint } = inProcessEndpoint();
    const response = await endpoint.fetch(listToolsRequest({ authorization: 'Basic abc' }));
    expect(response.status).toBe(401);
  });

  it('refuses a token whose expiry has passed', async () => {
    const { endpoint, clock } = inProcessEndpoint();
    expect((await endpoint.fetch(listToolsRequest())).status).toBe(200);
    clock.advance(601_000);
    const response = await endpoint.fetch(listToolsRequest());
    expect(response.status).toBe(401);
    expect(challengeOf(response)).toContain('expired');
  });

  it('answers a storage outage while the token is checked with 503, never a 401 that would send the client to log in', async () => {
    const { endpoint } = inProcessEndpoint();
    const response = await endpoint.fetch(listToolsRequest({ authorization: 'Bearer outage-token' }));
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).not.toBeNull();
  });
});

describe('RFC 6749 §3.3: scopes are opaque strings matched exactly against the tenant resourceScopes', () => {
  it('refuses a token without the tool scope with 403 insufficient_scope naming every scope needed', async () => {
    const { endpoint } = inProcessEndpoint();
    const response = await endpoint.fetch(listToolsRequest({ authorization: 'Bearer no-scope-token' }));
    expect(response.status).toBe(403);
    expect(challengeOf(response)).toContain('error="insufficient_scope"');
    expect(challengeOf(response)).toContain('scope="mcp:tools"');
  });

  it('does not read `mcp` as covering `mcp:tools`', async () => {
    const { endpoint } = inProcessEndpoint();
    const response = await endpoint.fetch(listToolsRequest({ authorization: 'Bearer parent-scope-token' }));
    expect(response.status).toBe(403);
  });
});

describe('machine subjects: refused by default, served where the resource allows them', () => {
  // Not insufficient_scope naming a scope the token holds: both MCP SDKs would step up to an identical token.
  it('refuses a client_credentials token (machine subject) with 403 invalid_token and no scope hint', async () => {
    const { endpoint } = inProcessEndpoint();
    const response = await endpoint.fetch(listToolsRequest({ authorization: 'Bearer machine-token' }));
    expect(response.status).toBe(403);
    expect(challengeOf(response)).toContain('error="invalid_token"');
    expect(challengeOf(response)).toContain('error_description="machine clients are not accepted');
    expect(challengeOf(response)).not.toContain('scope=');
  });

  it('accepts machine subjects when the resource allows them', async () => {
    const { endpoint } = inProcessEndpoint({
      resource: testResource({ now: () => Date.now() }, PUBLIC_URL, { allowMachineSubjects: true }),
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

describe('drift: the endpoint requires what the tenant configures and its metadata advertises', () => {
  it('a tenant requiring files:read advertises it, names it in the 401 with the same realm, and accepts a files:read token', async () => {
    const clock = { now: () => Date.now() };
    const resource = testResource(clock, PUBLIC_URL, { resourceScopes: ['files:read'] });
    const { endpoint } = inProcessEndpoint({ resource });
    const metadata = await endpoint.fetch(
      new Request('http://127.0.0.1:8787/.well-known/oauth-protected-resource/mcp', {
        headers: { host: '127.0.0.1:8787' },
      }),
    );
    expect(metadata.status).toBe(200);
    const document = (await metadata.json()) as { scopes_supported: string[]; resource: string };
    expect(document.resource).toBe(PUBLIC_URL);
    expect(document.scopes_supported).toContain('files:read');
    expect(document.scopes_supported).not.toContain('mcp:tools');

    const challenge = await endpoint.fetch(listToolsRequest({ authorization: '' }));
    expect(challengeOf(challenge)).toContain('scope="files:read"');
    expect(challengeOf(challenge)).toContain(`realm="${resource.realm}"`);

    // `files-token` holds files:read only, no mcp:tools.
    const served = await endpoint.fetch(listToolsRequest({ authorization: 'Bearer files-token' }));
    expect(served.status).toBe(200);
    expect(await toolNames(served)).toEqual(['echo', 'list_repos']);
    const refused = await endpoint.fetch(listToolsRequest({ authorization: 'Bearer alice-token' }));
    expect(refused.status).toBe(403);
  });
});
