import type { HandlerResult } from '@keyhold/core';
import { createManualClock, rawHandlerOf } from '@keyhold/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { TenantConfig } from '../src/index.js';
import { createAuthorizationServer, createMemoryStorage, generateSigningKey } from '../src/index.js';
import { pkce, REDIRECT_URI, USER } from './helpers.js';

const BASE_URL = 'https://auth.example';

async function countingServer() {
  const signingKeys = [await generateSigningKey('ES256', 'k1')];
  const counts = { lookups: 0, builds: 0, resolveUserId: 0 };
  // Reading `firstPartyClientIds` is what building a tenant does (and nothing else): it counts the builds.
  const demo: TenantConfig = {
    signingKeys,
    get firstPartyClientIds() {
      counts.builds += 1;
      return [];
    },
  };
  const server = createAuthorizationServer({
    baseUrl: BASE_URL,
    tenants: {
      get: (slug) => {
        counts.lookups += 1;
        return slug === 'demo' ? demo : undefined;
      },
    },
    storage: createMemoryStorage(),
    clock: createManualClock(Date.parse('2026-03-01T12:00:00Z')),
    resolveUserId: () => {
      counts.resolveUserId += 1;
      return undefined;
    },
  });
  return { server, counts };
}

const post = (path: string, contentType: string, body: string): Request =>
  new Request(`${BASE_URL}${path}`, { method: 'POST', headers: { 'content-type': contentType }, body });

describe('fetch: only the endpoints that use a user ask for it', () => {
  it('never calls the user resolver for token, registration, revocation, introspection, userinfo or discovery', async () => {
    const { server, counts } = await countingServer();
    let infoCalls = 0;
    const userId = () => {
      infoCalls += 1;
      return USER;
    };
    const form = 'application/x-www-form-urlencoded';
    const requests = [
      post('/tenant/demo/token', form, 'grant_type=client_credentials&client_id=c&client_secret=s'),
      post('/tenant/demo/register', 'application/json', JSON.stringify({ redirect_uris: [REDIRECT_URI] })),
      post('/tenant/demo/revoke', form, 'token=t&client_id=c'),
      post('/tenant/demo/introspect', form, 'token=t'),
      new Request(`${BASE_URL}/tenant/demo/userinfo`),
      new Request(`${BASE_URL}/.well-known/oauth-authorization-server/tenant/demo`),
      new Request(`${BASE_URL}/.well-known/openid-configuration/tenant/demo`),
      new Request(`${BASE_URL}/.well-known/oauth-protected-resource/tenant/demo/mcp`),
      new Request(`${BASE_URL}/tenant/demo/.well-known/jwks.json`),
      new Request(`${BASE_URL}/tenant/demo/token`, {
        method: 'OPTIONS',
        headers: { origin: 'https://a.example' },
      }),
    ];
    for (const request of requests) {
      const response = await server.fetch(request, { userId });
      expect(response.status).toBeLessThan(500);
    }
    expect([infoCalls, counts.resolveUserId]).toEqual([0, 0]);
  });

  it('asks once on authorize: the host’s function first, the resolveUserId option when it names nobody', async () => {
    const { server, counts } = await countingServer();
    const registered = await server.fetch(
      post(
        '/tenant/demo/register',
        'application/json',
        JSON.stringify({ redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none' }),
      ),
    );
    const { client_id: clientId } = (await registered.json()) as { client_id: string };
    const query = new URLSearchParams({
      client_id: clientId,
      response_type: 'code',
      redirect_uri: REDIRECT_URI,
      code_challenge: pkce().challenge,
      code_challenge_method: 'S256',
    });
    let infoCalls = 0;
    const toConsent = await server.fetch(new Request(`${BASE_URL}/tenant/demo/authorize?${query}`), {
      userId: () => {
        infoCalls += 1;
        return USER;
      },
    });
    expect(new URL(toConsent.headers.get('location')!).pathname).toBe('/tenant/demo/consent');
    expect([infoCalls, counts.resolveUserId]).toEqual([1, 0]);
    const toLogin = await server.fetch(new Request(`${BASE_URL}/tenant/demo/authorize?${query}`), {
      userId: () => undefined,
    });
    expect(new URL(toLogin.headers.get('location')!).pathname).toBe('/tenant/demo/login');
    expect(counts.resolveUserId).toBe(1);
  });
});

describe('fetch: the tenant is looked up once per request and built once while its config is unchanged', () => {
  it('looks the tenant up once per request and reuses the built tenant for the next requests', async () => {
    const { server, counts } = await countingServer();
    const jwks = () => server.fetch(new Request(`${BASE_URL}/tenant/demo/.well-known/jwks.json`));
    expect((await jwks()).status).toBe(200);
    expect(counts).toMatchObject({ lookups: 1, builds: 1 });
    for (let i = 0; i < 3; i += 1) expect((await jwks()).status).toBe(200);
    expect(counts).toMatchObject({ lookups: 4, builds: 1 });
  });

  it('rebuilds the tenant when the lookup returns a new config object', async () => {
    const signingKeys = [await generateSigningKey('ES256', 'k1')];
    let config: TenantConfig = { signingKeys, resourceScopes: ['files:read'] };
    const server = createAuthorizationServer({
      baseUrl: BASE_URL,
      tenants: { get: () => config },
      storage: createMemoryStorage(),
    });
    const scopes = async () => {
      const response = await server.fetch(
        new Request(`${BASE_URL}/.well-known/oauth-protected-resource/tenant/demo/mcp`),
      );
      return ((await response.json()) as { scopes_supported?: string[] }).scopes_supported;
    };
    expect(await scopes()).toContain('files:read');
    config = { ...config, resourceScopes: ['files:write'] };
    const changed = await scopes();
    expect([changed?.includes('files:write'), changed?.includes('files:read')]).toEqual([true, false]);
  });
});

describe('ownsPath: exactly the paths fetch serves', () => {
  const routes = [
    '/authorize',
    '/consent',
    '/token',
    '/register',
    '/revoke',
    '/introspect',
    '/userinfo',
    '/.well-known/jwks.json',
    '/.well-known/oauth-authorization-server',
    '/.well-known/openid-configuration',
    '/.well-known/oauth-protected-resource',
    '/mcp/.well-known/oauth-protected-resource',
  ];
  const wellKnownNames = ['oauth-authorization-server', 'openid-configuration', 'oauth-protected-resource'];
  const slug = fc.constantFrom('demo', 'other', 'a%2Fb', '%ZZ', '', 'x y');
  const path = fc.oneof(
    fc
      .tuple(
        fc.constantFrom('', '/base', '/tenant'),
        slug,
        fc.constantFrom(...routes, '', '/', '/tokens', '/mcp'),
      )
      .map(([prefix, s, rest]) => `${prefix}/tenant/${s}${rest}`),
    fc
      .tuple(
        fc.constantFrom(...wellKnownNames, 'jwks', 'Oauth-authorization-server'),
        slug,
        fc.constantFrom('', '/mcp', '/x'),
      )
      .map(([name, s, suffix]) => `/.well-known/${name}/tenant/${s}${suffix}`),
    fc.webPath(),
  );

  it('says yes for every path fetch answers and no for every path it answers with not_found', async () => {
    const { server } = await countingServer();
    await fc.assert(
      fc.asyncProperty(path, async (pathname) => {
        let request: Request;
        try {
          request = new Request(`${BASE_URL}${pathname}`, { method: 'OPTIONS' });
        } catch {
          return;
        }
        const served = new URL(request.url).pathname;
        const response = await server.fetch(request);
        const notFound =
          response.status === 404 && ((await response.json()) as { error?: string }).error === 'not_found';
        expect(server.ownsPath(served)).toBe(!notFound);
      }),
      { numRuns: 300 },
    );
  });
});

describe("the raw handler (Node's path without web objects) answers exactly as fetch does", () => {
  it('gives the same status, headers and body for discovery, 404, 405, a preflight, a bad token request and a refused registration', async () => {
    const { server } = await countingServer();
    const raw = (request: Request): Promise<HandlerResult> => {
      const url = new URL(request.url);
      const handler = rawHandlerOf(server, url.pathname);
      if (handler === undefined) throw new Error(`no raw handler for ${url.pathname}`);
      const headers: Record<string, string> = {};
      request.headers.forEach((value, name) => {
        headers[name] = value;
      });
      return handler({
        method: request.method,
        url: request.url,
        path: url.pathname,
        query: url.search.slice(1),
        headers,
        readBody: () => request.clone().text(),
        info: {},
      });
    };
    const form = 'application/x-www-form-urlencoded';
    const cases = [
      () => new Request(`${BASE_URL}/.well-known/oauth-authorization-server/tenant/demo`),
      () => new Request(`${BASE_URL}/tenant/demo/token`),
      () =>
        new Request(`${BASE_URL}/tenant/demo/token`, {
          method: 'OPTIONS',
          headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' },
        }),
      () => post('/tenant/demo/token', form, 'grant_type=client_credentials&client_id=c&client_secret=s'),
      () => post('/tenant/demo/register', 'application/json', '{"redirect_uris":"not a list"}'),
    ];
    for (const make of cases) {
      const viaFetch = await server.fetch(make());
      const viaRaw = await raw(make());
      expect(viaRaw.status, make().url).toBe(viaFetch.status);
      expect(viaRaw.body ?? '', make().url).toBe(await viaFetch.text());
      for (const [name, value] of Object.entries(viaRaw.headers)) {
        expect(viaFetch.headers.get(name), name).toBe(value);
      }
    }
    expect(rawHandlerOf(server, '/not/ours')).toBeUndefined();
  });
});
