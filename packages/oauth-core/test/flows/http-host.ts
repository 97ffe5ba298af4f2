import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createNodeListener, createRouter } from '@keyhold/adapter-node/legacy';
import type { HandlerRequest, HandlerResult } from '@keyhold/core';
import { jsonResult } from '@keyhold/core';
import type { AuthorizationServer, AuthorizationServerOptions, TenantConfig } from '../../src/index.js';
import { createAuthorizationServer, createMemoryStorage, generateSigningKey } from '../../src/index.js';

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
  readonly server: AuthorizationServer;
  close(): Promise<void>;
}

/**
 * A minimal host in the shape of the example host: a real node:http server, the adapter's router, every
 * discovery form, and a protected `/tenant/:tenant/mcp`. The "session" is a `session` cookie naming the user.
 */
export async function startHttpHost(
  tenantOverrides: Partial<TenantConfig> = {},
  options: Partial<AuthorizationServerOptions> = {},
): Promise<HttpHost> {
  let handle: (request: HandlerRequest) => Promise<HandlerResult> = async () => jsonResult(503, {});
  const http: Server = createServer(
    createNodeListener((request) => handle(request), {
      resolveUserId: (req) => /(?:^|;\s*)session=([^;]+)/.exec(req.headers.cookie ?? '')?.[1],
    }),
  );
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}`;
  const tenant: TenantConfig = {
    signingKeys: [await generateSigningKey('ES256', 'k1')],
    resourceScopes: ['mcp'],
    ...tenantOverrides,
  };
  const server = createAuthorizationServer({
    baseUrl,
    tenants: { get: (slug) => (slug === 'demo' ? tenant : undefined) },
    storage: createMemoryStorage(),
    ...options,
  });
  const router = createRouter();
  const slug = (params: Readonly<Record<string, string>>): string => params.tenant ?? '';
  router
    .on('GET', '/tenant/:tenant/authorize', (req, p) => server.authorize(req, slug(p)))
    .on('GET', '/tenant/:tenant/consent', (req, p) => server.consentPage(req, slug(p)))
    .on('POST', '/tenant/:tenant/consent', (req, p) => server.consent(req, slug(p)))
    .on('POST', '/tenant/:tenant/token', (req, p) => server.token(req, slug(p)))
    .on('POST', '/tenant/:tenant/register', (req, p) => server.register(req, slug(p)))
    .on('POST', '/tenant/:tenant/revoke', (req, p) => server.revoke(req, slug(p)))
    .on('POST', '/tenant/:tenant/introspect', (req, p) => server.introspect(req, slug(p)))
    .on('GET', DISCOVERY_ROUTES.jwks, (req, p) => server.jwks(req, slug(p)))
    .on('GET', '/tenant/:tenant/mcp', async (req, p) => {
      // The tenant's resourceScopes (['mcp'] here) are required by default.
      const check = await server.verifyAccessToken(slug(p), req.headers.authorization);
      return check.ok ? jsonResult(200, { sub: check.claims.sub }) : check.result;
    });
  for (const pattern of DISCOVERY_ROUTES.authorizationServerMetadata) {
    router.on('GET', pattern, (req, p) => server.authorizationServerMetadata(req, slug(p)));
  }
  for (const pattern of DISCOVERY_ROUTES.protectedResourceMetadata) {
    router.on('GET', pattern, (req, p) => server.protectedResourceMetadata(req, slug(p)));
  }
  handle = router.handle;
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
