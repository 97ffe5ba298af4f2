import type { ClientAssertionAlgorithm } from '../client-keys.js';
import { optionCheck } from '../errors.js';
import type { UserStore } from '../federated/storage.js';
import type { ClientJwks } from '../storage.js';
import { checkTrustKeys, isHttpUrl, stringList } from './trust-entry-checks.js';

/**
 * An enterprise identity provider a tenant trusts to issue Identity Assertion JWT Authorization Grants
 * (ID-JAG, `typ` `oauth-id-jag+jwt`) redeemed with the jwt-bearer grant (RFC 7523, MCP enterprise-managed
 * authorization). Listed on a tenant as `enterpriseIssuers`; checked once when the tenant is built.
 *
 * @example
 * ```ts
 * const idp: EnterpriseIssuer = {
 *   issuer: 'https://idp.example',
 *   jwksUri: 'https://idp.example/jwks',
 *   clients: ['agent-client'],
 *   scopes: ['mcp:tools'],
 * };
 * ```
 */
export interface EnterpriseIssuer {
  /** The IdP's issuer identifier, compared exactly with the assertion's `iss`. */
  readonly issuer: string;
  /** The IdP's public keys, inline. Exactly one of `jwks` and `jwksUri`. */
  readonly jwks?: ClientJwks;
  /** Where the IdP publishes its keys: fetched through the server's bounded, SSRF-safe key-set fetch (https). */
  readonly jwksUri?: string;
  /** The `alg` values accepted from this IdP. Default `['RS256', 'ES256']`; never `none` or an HMAC. */
  readonly algorithms?: readonly ClientAssertionAlgorithm[];
  /** The client_ids (at this server) that may redeem this IdP's assertions: at least one. */
  readonly clients: readonly string[];
  /** The most a token from this IdP may carry: the issued scope is the request ∩ assertion ∩ this. */
  readonly scopes: readonly string[];
  /**
   * Maps the assertion's (`iss`, `sub`) to a local user through the federated-identity records; an unknown
   * identity is refused. Absent: the assertion's `sub` is the local user id.
   */
  readonly users?: Pick<UserStore, 'findUser'>;
}

/** An {@link EnterpriseIssuer} as checked at creation, defaults applied. */
export interface ResolvedEnterpriseIssuer extends EnterpriseIssuer {
  readonly algorithms: readonly ClientAssertionAlgorithm[];
}

/**
 * Checks a tenant's `enterpriseIssuers` and applies defaults; throws `ERR_INVALID_OPTIONS` naming the entry.
 * Issuers must be unique: an assertion's `iss` picks exactly one trust entry.
 */
export function resolveEnterpriseIssuers(
  issuers: readonly EnterpriseIssuer[] | undefined,
): readonly ResolvedEnterpriseIssuer[] {
  if (issuers === undefined) return [];
  if (!Array.isArray(issuers)) throw optionCheck.invalid('enterpriseIssuers must be an array');
  const seen = new Set<string>();
  return issuers.map((entry, index) => {
    const name = `enterpriseIssuers[${index}]`;
    if (typeof entry !== 'object' || entry === null) throw optionCheck.invalid(`${name} must be an object`);
    // The issuer is an identifier, not a fetched URL, so http is allowed (loopback test IdPs use it).
    if (typeof entry.issuer !== 'string' || !isHttpUrl(entry.issuer, true)) {
      throw optionCheck.invalid(`${name}.issuer must be an http(s) URL`);
    }
    if (seen.has(entry.issuer)) throw optionCheck.invalid(`${name}.issuer ${entry.issuer} is listed twice`);
    seen.add(entry.issuer);
    const algorithms = checkTrustKeys(name, entry);
    if (!stringList(entry.clients) || entry.clients.length === 0) {
      throw optionCheck.invalid(`${name}.clients must list at least one client_id`);
    }
    if (!stringList(entry.scopes)) throw optionCheck.invalid(`${name}.scopes must be an array of scopes`);
    if (entry.users !== undefined && typeof entry.users?.findUser !== 'function') {
      throw optionCheck.invalid(`${name}.users must have findUser`);
    }
    return { ...entry, algorithms };
  });
}
