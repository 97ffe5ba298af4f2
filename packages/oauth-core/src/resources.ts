import { OAuthError } from './errors.js';
import type { Tenant } from './tenant.js';

/**
 * The canonical form of a resource indicator for comparison (RFC 3986 §6.2.2): scheme and host in lower
 * case, a default port dropped, an empty path as `/`; path and query stay exactly as sent. `undefined` for
 * a value that is not an absolute URI.
 *
 * @example
 * ```ts
 * canonicalResource('HTTPS://Auth.Example:443'); // 'https://auth.example/'
 * ```
 */
export function canonicalResource(value: string): string | undefined {
  try {
    // WHATWG URL parsing lower-cases scheme and host, drops default ports and gives an empty path `/`.
    return new URL(value).href;
  } catch {
    return undefined;
  }
}

/**
 * Parses RFC 8707 `resource` values (several arrive space-joined from the strict form parser): each must
 * be an absolute URI without a fragment naming one of the tenant's resources, compared in canonical form
 * (a client sending `HTTPS://Host/mcp` means the same resource as `https://host/mcp`). Answers the tenant's
 * own spelling of each, so tokens always carry one audience string per resource.
 */
export function parseResources(tenant: Tenant, value: string | undefined): string[] {
  if (value === undefined) return [];
  const values = [...new Set(value.split(' ').filter((v) => v !== ''))];
  const known = new Map(tenant.resources.map((resource) => [canonicalResource(resource), resource]));
  const resources: string[] = [];
  for (const resource of values) {
    const canonical = canonicalResource(resource);
    if (canonical === undefined) throw new OAuthError('invalid_target', 'resource must be an absolute URI');
    if (resource.includes('#'))
      throw new OAuthError('invalid_target', 'resource must not contain a fragment');
    const own = known.get(canonical);
    if (own === undefined) {
      throw new OAuthError('invalid_target', `this server issues no tokens for the resource ${resource}`);
    }
    if (!resources.includes(own)) resources.push(own);
  }
  return resources;
}

/** The audience of a token for the granted resources: them, or the tenant's default resource. */
export function audienceFor(tenant: Tenant, resources: readonly string[]): readonly string[] {
  return resources.length > 0 ? resources : [tenant.resources[0] as string];
}
