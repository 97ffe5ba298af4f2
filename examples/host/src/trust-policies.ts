import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { EnterpriseIssuer } from '@keyhold/oauth-core';

/** What one tenant of `KEYHOLD_TRUST_POLICIES` configures: the enterprise IdPs whose ID-JAGs it redeems. */
export interface TenantTrust {
  readonly enterpriseIssuers: readonly EnterpriseIssuer[];
}

/** A trust file is configuration, not data: anything larger is a mistake, refused before it is read. */
const MAX_FILE_BYTES = 1024 * 1024;

function fail(file: string, message: string): never {
  throw new Error(`KEYHOLD_TRUST_POLICIES (${file}): ${message}`);
}

function issuerOf(file: string, where: string, value: unknown): EnterpriseIssuer {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    fail(file, `${where} must be an object`);
  const entry = value as Record<string, unknown>;
  const known = ['issuer', 'jwks', 'jwks_uri', 'jwksUri', 'algorithms', 'clients', 'scopes'];
  const unknown = Object.keys(entry).filter((name) => !known.includes(name));
  if (unknown.length > 0) fail(file, `${where} has unknown fields: ${unknown.join(', ')}`);
  const jwksUri = entry['jwks_uri'] ?? entry['jwksUri'];
  // The library checks the values (URLs, keys, algorithms) when the tenant is created; here only the shape.
  return {
    issuer: entry['issuer'] as string,
    clients: (entry['clients'] ?? []) as string[],
    scopes: (entry['scopes'] ?? []) as string[],
    ...(entry['jwks'] === undefined ? {} : { jwks: entry['jwks'] as EnterpriseIssuer['jwks'] & object }),
    ...(jwksUri === undefined ? {} : { jwksUri: jwksUri as string }),
    ...(entry['algorithms'] === undefined
      ? {}
      : { algorithms: entry['algorithms'] as EnterpriseIssuer['algorithms'] & object }),
  };
}

/**
 * Reads the trust policies file `KEYHOLD_TRUST_POLICIES` names (relative to `cwd`), keyed by tenant slug:
 * `{ "demo": { "enterpriseIssuers": [ { "issuer", "jwks" | "jwks_uri", "clients", "scopes" } ] } }`. Absent
 * variable: no tenant trusts anyone. Throws a message naming the file for a missing, oversized or malformed
 * file, a tenant the host does not serve, or `workloads` (workload identity is not in this version yet).
 *
 * @example
 * ```ts
 * const trust = readTrustPolicies(process.env, process.cwd(), ['demo']);
 * ```
 */
export function readTrustPolicies(
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
  tenants: readonly string[],
): Readonly<Record<string, TenantTrust>> {
  const named = env['KEYHOLD_TRUST_POLICIES']?.trim();
  if (named === undefined || named === '') return {};
  const file = resolve(cwd, named);
  let text: string;
  try {
    if (statSync(file).size > MAX_FILE_BYTES) fail(file, `larger than ${MAX_FILE_BYTES} bytes`);
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if (error instanceof Error && error.message.startsWith('KEYHOLD_TRUST_POLICIES')) throw error;
    fail(file, 'cannot be read');
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    fail(file, 'is not JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    fail(file, 'must be an object keyed by tenant slug');
  }
  const result: Record<string, TenantTrust> = {};
  for (const [slug, value] of Object.entries(parsed as Record<string, unknown>)) {
    if (!tenants.includes(slug)) fail(file, `"${slug}" is not a tenant of this host (${tenants.join(', ')})`);
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      fail(file, `${slug} must be an object`);
    const policy = value as Record<string, unknown>;
    if (policy['workloads'] !== undefined) {
      fail(file, `${slug}.workloads: workload identity is not supported by this version of the host`);
    }
    const issuers = policy['enterpriseIssuers'] ?? [];
    if (!Array.isArray(issuers)) fail(file, `${slug}.enterpriseIssuers must be an array`);
    result[slug] = {
      enterpriseIssuers: issuers.map((entry, index) =>
        issuerOf(file, `${slug}.enterpriseIssuers[${index}]`, entry),
      ),
    };
  }
  return result;
}
