/**
 * Route patterns (with a `:tenant` segment, relative to the host's origin) under which a host mounts the
 * discovery documents in every form MCP clients try: RFC 8414 path insertion, the issuer-relative form,
 * and the OpenID Connect variants of both; RFC 9728 path insertion for the resource and the
 * issuer-relative form; and the JWKS. Prefix them with the path of `baseUrl` when it has one.
 *
 * @example
 * ```ts
 * for (const pattern of DISCOVERY_ROUTES.authorizationServerMetadata) {
 *   router.on('GET', pattern, (req, { tenant }) => server.authorizationServerMetadata(req, tenant!));
 * }
 * ```
 */
export const DISCOVERY_ROUTES: {
  readonly authorizationServerMetadata: readonly string[];
  readonly protectedResourceMetadata: readonly string[];
  readonly jwks: string;
} = Object.freeze({
  authorizationServerMetadata: Object.freeze([
    '/.well-known/oauth-authorization-server/tenant/:tenant',
    '/tenant/:tenant/.well-known/oauth-authorization-server',
    '/.well-known/openid-configuration/tenant/:tenant',
    '/tenant/:tenant/.well-known/openid-configuration',
  ]),
  protectedResourceMetadata: Object.freeze([
    '/.well-known/oauth-protected-resource/tenant/:tenant/mcp',
    '/tenant/:tenant/.well-known/oauth-protected-resource',
  ]),
  jwks: '/tenant/:tenant/.well-known/jwks.json',
});

/**
 * Inserts a well-known suffix between the origin and the path of a URL (RFC 8414 §3.1, RFC 9728 §3.1).
 *
 * @example
 * ```ts
 * wellKnownUrl('https://auth.example/tenant/demo', 'oauth-authorization-server');
 * // 'https://auth.example/.well-known/oauth-authorization-server/tenant/demo'
 * ```
 */
export function wellKnownUrl(identifier: string, suffix: string): string {
  const url = new URL(identifier);
  const path = url.pathname === '/' ? '' : url.pathname.replace(/\/+$/, '');
  return `${url.origin}/.well-known/${suffix}${path}`;
}

/**
 * The issuer of a tenant: `{baseUrl}/tenant/<slug>`, without a trailing slash.
 *
 * @example
 * ```ts
 * tenantIssuer('https://auth.example', 'demo'); // 'https://auth.example/tenant/demo'
 * ```
 */
export function tenantIssuer(baseUrl: string, slug: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/tenant/${encodeURIComponent(slug)}`;
}
