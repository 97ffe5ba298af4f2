// The option checks the two kinds of trusted assertion issuer share (`enterpriseIssuers` for ID-JAG,
// `workloads` for workload identity): where their keys come from and which algorithms they may sign with.
// Both are checked once, at creation, so a misconfigured entry fails the server's start, not a request.
import {
  CLIENT_ASSERTION_ALGORITHMS,
  type ClientAssertionAlgorithm,
  parseClientJwks,
} from '../client-keys.js';
import { optionCheck } from '../errors.js';
import type { ClientJwks } from '../storage.js';

/** The algorithms an entry that names none accepts. */
const DEFAULT_ALGORITHMS: readonly ClientAssertionAlgorithm[] = ['RS256', 'ES256'];

/** Whether `value` is an https URL, or an http one where `insecure` allows it (loopback test issuers). */
export function isHttpUrl(value: unknown, insecure: boolean): value is string {
  if (typeof value !== 'string') return false;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  return url.protocol === 'https:' || (insecure && url.protocol === 'http:');
}

/** Whether `value` is a list of non-empty strings. */
export function stringList(value: unknown): value is readonly string[] {
  return Array.isArray(value) && value.every((entry) => typeof entry === 'string' && entry !== '');
}

/** The key and algorithm fields of a trusted issuer entry, as the host wrote them. */
interface TrustKeyFields {
  readonly jwks?: ClientJwks | undefined;
  readonly jwksUri?: string | undefined;
  readonly algorithms?: readonly ClientAssertionAlgorithm[] | undefined;
}

/**
 * Checks the entry named `where`: exactly one of `jwks` (a usable public JWK Set) and `jwksUri` (https),
 * and `algorithms` one or more of the client-assertion algorithms. Answers the algorithms, defaulted.
 */
export function checkTrustKeys(where: string, entry: TrustKeyFields): readonly ClientAssertionAlgorithm[] {
  if ((entry.jwks === undefined) === (entry.jwksUri === undefined)) {
    throw optionCheck.invalid(`${where} needs exactly one of jwks and jwksUri`);
  }
  if (entry.jwks !== undefined && !parseClientJwks(entry.jwks).ok) {
    throw optionCheck.invalid(`${where}.jwks is not a usable JWK Set of public keys`);
  }
  if (entry.jwksUri !== undefined && !isHttpUrl(entry.jwksUri, false)) {
    throw optionCheck.invalid(`${where}.jwksUri must be an https URL`);
  }
  const algorithms = entry.algorithms ?? DEFAULT_ALGORITHMS;
  if (
    !Array.isArray(algorithms) ||
    algorithms.length === 0 ||
    !algorithms.every((alg) => (CLIENT_ASSERTION_ALGORITHMS as readonly string[]).includes(alg))
  ) {
    throw optionCheck.invalid(
      `${where}.algorithms must list one or more of ${CLIENT_ASSERTION_ALGORITHMS.join(', ')}`,
    );
  }
  return algorithms;
}
