import { OAuthError } from './errors.js';
import type { Tenant } from './tenant.js';

/**
 * Parses RFC 8707 `resource` values (several arrive space-joined from the strict form parser): each must
 * be an absolute URI without a fragment and one of the tenant's resources.
 */
export function parseResources(tenant: Tenant, value: string | undefined): string[] {
  if (value === undefined) return [];
  const values = [...new Set(value.split(' ').filter((v) => v !== ''))];
  for (const resource of values) {
    let url: URL;
    try {
      url = new URL(resource);
    } catch {
      throw new OAuthError('invalid_target', 'resource must be an absolute URI');
    }
    if (url.hash !== '' || resource.includes('#'))
      throw new OAuthError('invalid_target', 'resource must not contain a fragment');
    if (!tenant.resources.includes(resource)) {
      throw new OAuthError('invalid_target', `this server issues no tokens for the resource ${resource}`);
    }
  }
  return values;
}

/** The audience of a token for the granted resources: them, or the tenant's default resource. */
export function audienceFor(tenant: Tenant, resources: readonly string[]): readonly string[] {
  return resources.length > 0 ? resources : [tenant.resources[0] as string];
}
