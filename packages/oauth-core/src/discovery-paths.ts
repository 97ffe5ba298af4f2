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
