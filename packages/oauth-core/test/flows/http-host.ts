import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toNodeListener } from '@keyhold/adapter-node';
import { type Area, compose } from '@keyhold/core';
import { jsonResult, toResponse } from '@keyhold/internal';
import type { AuthorizationServerWithEndpoints } from '../../src/authorization-server.js';
import { createAuthorizationServerWithEndpoints } from '../../src/authorization-server.js';
import type { AuthorizationServerOptions, TenantConfig } from '../../src/index.js';
import { createMemoryStorage, generateSigningKey } from '../../src/index.js';
import type { ResolverOverrides } from '../../src/options.js';

/** Every discovery form MCP clients try (RFC 8414 and OpenID, path-inserted and issuer-relative; RFC 9728). */
export const DISCOVERY_ROUTES = {
  authorizationServerMetadata: [
    '/.well-known/oauth-authorization-server/tenant/:tenant',
    '/tenant/:tenant/.well-known/oauth-authorization-server',
    '/.well-known/openid-configuration/tenant/:tenant',
    '/tenant/:tenant/.well-known/openid-configuration',
  ],
  protectedResourceMetadata: [
    '/.well-known/oauth-protected-resource/tenant/:tenant/mcp',
    '/tenant/:tenant/.well-known/oauth-protected-resource',
  ],
  jwks: '/tenant/:tenant/.well-known/jwks.json',
} as const;

export interface HttpHost {
  readonly baseUrl: string;
  readonly issuer: string;
  readonly server: AuthorizationServerWithEndpoints;
  close(): Promise<void>;
}

/**
 * A minimal host in the shape of the example host: a real node:http server serving, through `toNodeListener`,
 * the authorization server (every discovery form above included) composed with a protected
 * `/tenant/:tenant/mcp`. The "session" is a `session` cookie naming the user.
 */
export async function startHttpHost(
  tenantOverrides: Partial<TenantConfig> = {},
  options: Partial<AuthorizationServerOptions & ResolverOverrides> = {},
): Promise<HttpHost> {
  // The server needs the listening port for its baseUrl: the listener forwards to it once it exists.
  let area: Area | undefined;
  const http: Server = createServer(
    toNodeListener(
      {
        ownsPath: () => true,
        fetch: async (request, info) =>
          area === undefined ? toResponse(jsonResult(503, {})) : area.fetch(request, info),
      },
      { userId: (req) => /(?:^|;\s*)session=([^;]+)/.exec(req.headers.cookie ?? '')?.[1] },
    ),
  );
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}`;
  const tenant: TenantConfig = {
    signingKeys: [await generateSigningKey('ES256', 'k1')],
    resourceScopes: ['mcp'],
    ...tenantOverrides,
  };
  const server = createAuthorizationServerWithEndpoints({
    baseUrl,
    tenants: { get: (slug) => (slug === 'demo' ? tenant : undefined) },
    storage: createMemoryStorage(),
    ...options,
  });
  const resourcePath = /^\/tenant\/([^/]+)\/mcp$/;
  const resource: Area = {
    ownsPath: (path) => resourcePath.test(path),
    async fetch(request) {
      if (request.method !== 'GET') return toResponse(jsonResult(405, {}, { allow: 'GET' }));
      const slug = resourcePath.exec(new URL(request.url).pathname)?.[1] ?? '';
      // The tenant's resourceScopes (['mcp'] here) are required by default.
      const check = await server.verifyAccessToken(slug, request.headers.get('authorization') ?? undefined, {
        request: { method: request.method, dpop: request.headers.get('dpop') ?? undefined },
      });
      if (!check.ok) return toResponse(check.result);
      // A fresh DPoP nonce travels with the answer, as a host does with every served request (RFC 9449 §9).
      const nonce = check.dpopNonce === undefined ? {} : { 'dpop-nonce': check.dpopNonce };
      return toResponse(jsonResult(200, { sub: check.claims.sub }, nonce));
    },
  };
  area = compose(server, resource);
  return {
    baseUrl,
    issuer: `${baseUrl}/tenant/demo`,
    server,
    close: () =>
      new Promise<void>((resolve, reject) => {
        http.closeAllConnections();
        http.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/**
 * Plays the browser on the consent screen: loads it (keeping its anti-forgery cookie and reading the form's
 * `csrf_token`), then posts the decision with that cookie. Returns the POST's response (not followed).
 */
export async function submitConsent(
  consentUrl: URL,
  headers: Record<string, string> = {},
  decision = 'approve',
): Promise<Response> {
  const page = await fetch(consentUrl, { headers });
  if (page.status !== 200) throw new Error(`consent page answered ${page.status}`);
  const cookie = (page.headers.get('set-cookie') ?? '').split(';', 1)[0] ?? '';
  const csrfToken = /name="csrf_token" value="([^"]+)"/.exec(await page.text())?.[1] ?? '';
  const cookies = [headers.cookie, cookie].filter((c) => c !== undefined && c !== '').join('; ');
  return fetch(new URL(consentUrl.pathname, consentUrl), {
    method: 'POST',
    redirect: 'manual',
    headers: { ...headers, cookie: cookies, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      req: String(consentUrl.searchParams.get('req')),
      decision,
      csrf_token: csrfToken,
    }).toString(),
  });
}
