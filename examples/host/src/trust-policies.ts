import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { EnterpriseIssuer, TenantConfig } from '@keyhold/oauth-core';

/** A workload trust policy as the library takes it (its type is not exported by name). */
type WorkloadPolicy = NonNullable<TenantConfig['workloads']>[number];

/**
 * What one tenant of `KEYHOLD_TRUST_POLICIES` configures: the enterprise IdPs whose ID-JAGs it redeems and
 * the workloads whose own JWTs it redeems.
 */
export interface TenantTrust {
  readonly enterpriseIssuers: readonly EnterpriseIssuer[];
  readonly workloads: readonly WorkloadPolicy[];
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

// A workload field's file spellings: the library's camelCase, or snake_case as `jwks_uri` is spelled.
const WORKLOAD_FIELDS: Readonly<Record<string, keyof WorkloadPolicy>> = {
  issuer: 'issuer',
  spiffe_trust_domain: 'spiffeTrustDomain',
  spiffeTrustDomain: 'spiffeTrustDomain',
  jwks: 'jwks',
  jwks_uri: 'jwksUri',
  jwksUri: 'jwksUri',
  algorithms: 'algorithms',
  audiences: 'audiences',
  subject: 'subject',
  require_jti: 'requireJti',
  requireJti: 'requireJti',
  require_iat: 'requireIat',
  requireIat: 'requireIat',
  max_lifetime_seconds: 'maxLifetimeSeconds',
  maxLifetimeSeconds: 'maxLifetimeSeconds',
  clock_skew_seconds: 'clockSkewSeconds',
  clockSkewSeconds: 'clockSkewSeconds',
  resources: 'resources',
  scopes: 'scopes',
  principal: 'principal',
  client_id: 'clientId',
  clientId: 'clientId',
};

function workloadOf(file: string, where: string, value: unknown): WorkloadPolicy {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    fail(file, `${where} must be an object`);
  const entry = value as Record<string, unknown>;
  const unknown = Object.keys(entry).filter((name) => !Object.hasOwn(WORKLOAD_FIELDS, name));
  if (unknown.length > 0) fail(file, `${where} has unknown fields: ${unknown.join(', ')}`);
  const policy: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(entry)) {
    const key = WORKLOAD_FIELDS[name] as string;
    if (Object.hasOwn(policy, key)) fail(file, `${where} spells ${key} twice`);
    policy[key] = field;
  }
  // The library checks the values (URLs, keys, subject, bounds) when the tenant is created; here the shape.
  return policy as unknown as WorkloadPolicy;
}

/**
 * Reads the trust policies file `KEYHOLD_TRUST_POLICIES` names (relative to `cwd`), keyed by tenant slug:
 * `{ "demo": { "enterpriseIssuers": [ { "issuer", "jwks" | "jwks_uri", "clients", "scopes" } ],
 * "workloads": [ { "issuer" | "spiffe_trust_domain", "jwks" | "jwks_uri", "subject", "scopes", … } ] } }`
 * (README "Trust policies"). Absent variable: no tenant trusts anyone. Throws a message naming the file for a
 * missing, oversized or malformed file, an unknown field, or a tenant the host does not serve.
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
    const unknown = Object.keys(policy).filter(
      (name) => name !== 'enterpriseIssuers' && name !== 'workloads',
    );
    if (unknown.length > 0) fail(file, `${slug} has unknown fields: ${unknown.join(', ')}`);
    const issuers = policy['enterpriseIssuers'] ?? [];
    if (!Array.isArray(issuers)) fail(file, `${slug}.enterpriseIssuers must be an array`);
    const workloads = policy['workloads'] ?? [];
    if (!Array.isArray(workloads)) fail(file, `${slug}.workloads must be an array`);
    result[slug] = {
      enterpriseIssuers: issuers.map((entry, index) =>
        issuerOf(file, `${slug}.enterpriseIssuers[${index}]`, entry),
      ),
      workloads: workloads.map((entry, index) => workloadOf(file, `${slug}.workloads[${index}]`, entry)),
    };
  }
  return result;
}
