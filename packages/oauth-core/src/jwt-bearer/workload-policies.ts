import type { ClientAssertionAlgorithm } from '../client-keys.js';
import { hasControlCharacter } from '../control-characters.js';
import { optionCheck } from '../errors.js';
import type { ClientJwks } from '../storage.js';
import { checkTrustKeys, isHttpUrl, stringList } from './trust-entry-checks.js';
import { parseSubjectMatcher, type SubjectMatcher } from './workload-subjects.js';

/**
 * A workload a tenant trusts to redeem its own JWT (a Kubernetes service-account token, a SPIFFE JWT-SVID,
 * a CI system's OIDC token) with the jwt-bearer grant (RFC 7523 §2.1, MCP workload identity federation,
 * SEP-1933). Listed on a tenant as `workloads`; checked once when the tenant is built. Not exported by name
 * (the public API has a fixed budget): spell it `NonNullable<TenantConfig['workloads']>[number]`.
 *
 * @example
 * ```ts
 * const ci: NonNullable<TenantConfig['workloads']>[number] = {
 *   issuer: 'https://token.actions.example',
 *   jwksUri: 'https://token.actions.example/jwks',
 *   subject: 'repo:acme/*',
 *   scopes: ['mcp:tools'],
 * };
 * ```
 */
export interface WorkloadTrustPolicy {
  /** The issuer identifier, compared exactly with the JWT's `iss`. Exactly one of this and `spiffeTrustDomain`. */
  readonly issuer?: string;
  /**
   * A SPIFFE trust domain (`example.org`): JWT-SVIDs need no `iss`, so the policy applies to JWTs whose `sub`
   * is a SPIFFE ID `spiffe://<trustDomain>/…`, whatever their `iss`.
   */
  readonly spiffeTrustDomain?: string;
  /** The issuer's public keys, inline. Exactly one of `jwks` and `jwksUri`. */
  readonly jwks?: ClientJwks;
  /** Where the issuer publishes its keys: fetched through the server's bounded, SSRF-safe key-set fetch (https). */
  readonly jwksUri?: string;
  /** The `alg` values accepted. Default `['RS256', 'ES256']`; never `none` or an HMAC. */
  readonly algorithms?: readonly ClientAssertionAlgorithm[];
  /**
   * The `aud` the JWT must carry, one value (a string or a one-element array) equal to one of these. Default:
   * the tenant issuer (with or without a trailing slash) or its token endpoint URL.
   */
  readonly audiences?: readonly string[];
  /**
   * Which workloads of the issuer: a string is the `sub` exactly, or a glob when it contains `*` (each `*`
   * matches any run of characters, `/` and `:` included; everything else literally, the whole `sub`):
   * `repo:acme/*`. An object is a claim map: every listed claim path (dots descend into objects:
   * `kubernetes.io.namespace`, also a literal key with dots) must equal its string exactly. `'*'` admits
   * every subject of the issuer, on purpose.
   */
  readonly subject: string | Readonly<Record<string, string>>;
  /** Whether the JWT must carry a `jti`. Default `true`. A `jti`, when present, is always spent once. */
  readonly requireJti?: boolean;
  /** Whether the JWT must carry an `iat`. Default `true` (JWT-SVIDs and some Kubernetes tokens may lack one). */
  readonly requireIat?: boolean;
  /** The longest a JWT may live: `exp − iat` (or `exp − now` without `iat`). Default 3600; 1 to 86400. */
  readonly maxLifetimeSeconds?: number;
  /** Tolerance for the issuer's clock on `exp`, `nbf` and `iat`. Default 60; 0 to 300. */
  readonly clockSkewSeconds?: number;
  /** The tenant resources (RFC 8707) a token may be for. Default: all of the tenant's. */
  readonly resources?: readonly string[];
  /** The most a token may carry: a request beyond it is `invalid_scope`; none requested gets all of it. */
  readonly scopes: readonly string[];
  /**
   * The name the issued token's subject uses: `workload:<principal>`. Default: the JWT's `sub`
   * (`workload:<sub>`). A principal groups many subjects (every branch of a repository) as one machine.
   */
  readonly principal?: string;
  /**
   * The `client_id` of issued tokens when no client authenticates (RFC 9068 needs one, and a block of it
   * refuses the workload). Default `workload:<issuer>` or `workload:spiffe://<trustDomain>`.
   */
  readonly clientId?: string;
}

/** A {@link WorkloadTrustPolicy} as checked at creation, defaults applied. */
export interface ResolvedWorkloadPolicy {
  /** Names the policy in logs and spend-once keys: the issuer, or `spiffe://<trustDomain>`. */
  readonly label: string;
  readonly issuer: string | undefined;
  readonly spiffeTrustDomain: string | undefined;
  readonly jwks: ClientJwks | undefined;
  readonly jwksUri: string | undefined;
  readonly algorithms: readonly ClientAssertionAlgorithm[];
  /** `undefined`: the tenant's issuer and token endpoint (known per request). */
  readonly audiences: readonly string[] | undefined;
  readonly subject: SubjectMatcher;
  readonly requireJti: boolean;
  readonly requireIat: boolean;
  readonly maxLifetimeSeconds: number;
  readonly clockSkewSeconds: number;
  /** Canonical resource URLs; `undefined`: every tenant resource. */
  readonly resources: readonly string[] | undefined;
  readonly scopes: readonly string[];
  readonly principal: string | undefined;
  readonly clientId: string;
}

const DEFAULT_MAX_LIFETIME_SECONDS = 3600;
const DEFAULT_CLOCK_SKEW_SECONDS = 60;
// Lower-case letters, digits, dots, dashes and underscores (SPIFFE-ID §2.1).
const TRUST_DOMAIN = /^[a-z0-9._-]{1,255}$/;
// Names that end up in tokens and logs: printable, bounded.
const MAX_NAME_LENGTH = 256;

function name(value: unknown): value is string {
  return (
    typeof value === 'string' &&
    value !== '' &&
    value.length <= MAX_NAME_LENGTH &&
    !hasControlCharacter([value])
  );
}

function resolveOne(entry: WorkloadTrustPolicy, where: string): ResolvedWorkloadPolicy {
  if (typeof entry !== 'object' || entry === null) throw optionCheck.invalid(`${where} must be an object`);
  if ((entry.issuer === undefined) === (entry.spiffeTrustDomain === undefined)) {
    throw optionCheck.invalid(`${where} needs exactly one of issuer and spiffeTrustDomain`);
  }
  // The issuer is an identifier, not a fetched URL: http is allowed (loopback test issuers use it).
  if (entry.issuer !== undefined && !isHttpUrl(entry.issuer, true)) {
    throw optionCheck.invalid(`${where}.issuer must be an http(s) URL`);
  }
  if (entry.spiffeTrustDomain !== undefined) {
    if (typeof entry.spiffeTrustDomain !== 'string' || !TRUST_DOMAIN.test(entry.spiffeTrustDomain)) {
      throw optionCheck.invalid(
        `${where}.spiffeTrustDomain must be a trust domain name (lower-case letters, digits, ".", "-", "_")`,
      );
    }
  }
  const algorithms = checkTrustKeys(where, entry);
  if (entry.audiences !== undefined && (!stringList(entry.audiences) || entry.audiences.length === 0)) {
    throw optionCheck.invalid(`${where}.audiences must list at least one audience`);
  }
  const subject = parseSubjectMatcher(entry.subject);
  if (subject === undefined) {
    throw optionCheck.invalid(
      `${where}.subject must be a non-empty string (exact, or a glob with *) or a map of claim paths to strings`,
    );
  }
  for (const flag of ['requireJti', 'requireIat'] as const) {
    if (entry[flag] !== undefined && typeof entry[flag] !== 'boolean') {
      throw optionCheck.invalid(`${where}.${flag} must be a boolean`);
    }
  }
  const maxLifetimeSeconds = optionCheck.integerInRange(
    `${where}.maxLifetimeSeconds`,
    entry.maxLifetimeSeconds,
    DEFAULT_MAX_LIFETIME_SECONDS,
    { min: 1, max: 86_400 },
  );
  const clockSkewSeconds = optionCheck.integerInRange(
    `${where}.clockSkewSeconds`,
    entry.clockSkewSeconds,
    DEFAULT_CLOCK_SKEW_SECONDS,
    { min: 0, max: 300 },
  );
  let resources: string[] | undefined;
  if (entry.resources !== undefined) {
    if (!stringList(entry.resources) || entry.resources.length === 0) {
      throw optionCheck.invalid(`${where}.resources must list at least one resource URL`);
    }
    resources = entry.resources.map((resource) => {
      if (!isHttpUrl(resource, true)) {
        throw optionCheck.invalid(`${where}.resources: ${resource} is not an http(s) URL`);
      }
      // The canonical form resources.ts compares in (not imported: it depends on the tenant, which needs this).
      return new URL(resource).href;
    });
  }
  if (!stringList(entry.scopes)) throw optionCheck.invalid(`${where}.scopes must be an array of scopes`);
  if (entry.principal !== undefined && !name(entry.principal)) {
    throw optionCheck.invalid(`${where}.principal must be a printable string of at most ${MAX_NAME_LENGTH}`);
  }
  if (entry.clientId !== undefined && !name(entry.clientId)) {
    throw optionCheck.invalid(`${where}.clientId must be a printable string of at most ${MAX_NAME_LENGTH}`);
  }
  const label = entry.issuer ?? `spiffe://${entry.spiffeTrustDomain}`;
  return {
    label,
    issuer: entry.issuer,
    spiffeTrustDomain: entry.spiffeTrustDomain,
    jwks: entry.jwks,
    jwksUri: entry.jwksUri,
    algorithms,
    audiences: entry.audiences,
    subject,
    requireJti: entry.requireJti ?? true,
    requireIat: entry.requireIat ?? true,
    maxLifetimeSeconds,
    clockSkewSeconds,
    resources,
    scopes: entry.scopes,
    principal: entry.principal,
    clientId: entry.clientId ?? `workload:${label}`,
  };
}

/**
 * Checks a tenant's `workloads` and applies defaults; throws `ERR_INVALID_OPTIONS` naming the entry
 * (`workloads[2].subject …`). Several policies may share an issuer (one per group of subjects): a JWT is
 * accepted under the first one it fully satisfies.
 */
export function resolveWorkloadPolicies(
  policies: readonly WorkloadTrustPolicy[] | undefined,
): readonly ResolvedWorkloadPolicy[] {
  if (policies === undefined) return [];
  if (!Array.isArray(policies)) throw optionCheck.invalid('workloads must be an array');
  return policies.map((entry, index) => resolveOne(entry, `workloads[${index}]`));
}
