import * as z from 'zod';
import type { ClientJwk, ClientJwks } from './storage.js';

/**
 * The JWS algorithms a `private_key_jwt` client assertion may be signed with (RFC 7523 §2.2). `none` and the
 * symmetric `HS*` algorithms are refused: a client's key set is public, so only asymmetric signatures
 * authenticate it.
 *
 * @example
 * ```ts
 * const ok = (CLIENT_ASSERTION_ALGORITHMS as readonly string[]).includes(header.alg);
 * ```
 */
export const CLIENT_ASSERTION_ALGORITHMS: readonly ['RS256', 'PS256', 'ES256', 'EdDSA'] = [
  'RS256',
  'PS256',
  'ES256',
  'EdDSA',
];

/**
 * One of {@link CLIENT_ASSERTION_ALGORITHMS}.
 */
export type ClientAssertionAlgorithm = (typeof CLIENT_ASSERTION_ALGORITHMS)[number];

/** At most this many keys in one client JWK Set (by value or fetched). */
export const MAX_CLIENT_JWKS_KEYS = 20;

// Members that only a private or symmetric key carries: a published key set holding them is refused whole,
// since its owner has leaked the key (and a symmetric key cannot authenticate anyone).
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'] as const;

const jwkSchema = z.looseObject({
  kty: z.enum(['RSA', 'EC', 'OKP'], { error: 'kty must be RSA, EC or OKP' }),
  kid: z.string().min(1).max(256).optional(),
  alg: z.string().max(32).optional(),
  use: z.string().max(32).optional(),
  key_ops: z.array(z.string()).optional(),
});

const jwksSchema = z.object({
  keys: z.array(jwkSchema).min(1, { error: 'keys must list at least one key' }).max(MAX_CLIENT_JWKS_KEYS),
});

/**
 * The outcome of {@link parseClientJwks}.
 */
export type ClientJwksCheck =
  | { readonly ok: true; readonly jwks: ClientJwks }
  | { readonly ok: false; readonly description: string };

/**
 * Validates a client's JWK Set (RFC 7517 §5), given by value or fetched from its `jwks_uri`: an object with
 * 1 to {@link MAX_CLIENT_JWKS_KEYS} public RSA, EC or OKP keys; a key with private members is refused.
 *
 * @example
 * ```ts
 * const check = parseClientJwks(JSON.parse(body));
 * if (!check.ok) throw new OAuthError('invalid_client_metadata', `jwks: ${check.description}`);
 * ```
 */
export function parseClientJwks(value: unknown): ClientJwksCheck {
  const parsed = jwksSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
    return { ok: false, description: `${where}${issue?.message ?? 'not a JWK Set'}` };
  }
  for (const key of parsed.data.keys) {
    if (PRIVATE_MEMBERS.some((member) => member in key)) {
      return { ok: false, description: 'a key holds private key material; publish public keys only' };
    }
  }
  return { ok: true, jwks: { keys: parsed.data.keys as ClientJwk[] } };
}

function keyTypeFits(key: ClientJwk, alg: ClientAssertionAlgorithm): boolean {
  switch (alg) {
    case 'RS256':
    case 'PS256':
      return key.kty === 'RSA';
    case 'ES256':
      return key.kty === 'EC' && key['crv'] === 'P-256';
    case 'EdDSA':
      return key.kty === 'OKP' && key['crv'] === 'Ed25519';
  }
}

/**
 * The keys of a set that may verify a signature made with `alg`: the right key type (and curve), `use`
 * absent or `sig`, `alg` absent or equal, `key_ops` absent or containing `verify`.
 *
 * @example
 * ```ts
 * const candidates = suitableKeys(jwks.keys, 'ES256');
 * ```
 */
export function suitableKeys(keys: readonly ClientJwk[], alg: ClientAssertionAlgorithm): ClientJwk[] {
  return keys.filter(
    (key) =>
      keyTypeFits(key, alg) &&
      (key.use === undefined || key.use === 'sig') &&
      (key.alg === undefined || key.alg === alg) &&
      (!Array.isArray(key['key_ops']) || (key['key_ops'] as unknown[]).includes('verify')),
  );
}

/**
 * The outcome of {@link selectClientKey}: the key, or why none was chosen (`unknown_kid` may be cured by
 * fetching the set again).
 */
export type ClientKeySelection =
  | { readonly ok: true; readonly key: ClientJwk }
  | { readonly ok: false; readonly reason: 'unknown_kid' | 'no_suitable_key' | 'ambiguous' };

/**
 * Chooses the verification key of an assertion: with a `kid`, the suitable key with that `kid`; without
 * one, the only suitable key (several is `ambiguous`: the client must send a `kid`).
 *
 * @example
 * ```ts
 * const selection = selectClientKey(jwks.keys, 'ES256', undefined);
 * if (selection.ok) await importJWK(selection.key, 'ES256');
 * ```
 */
export function selectClientKey(
  keys: readonly ClientJwk[],
  alg: ClientAssertionAlgorithm,
  kid: string | undefined,
): ClientKeySelection {
  const candidates = suitableKeys(keys, alg);
  if (kid !== undefined) {
    const key = candidates.find((candidate) => candidate.kid === kid);
    return key ? { ok: true, key } : { ok: false, reason: 'unknown_kid' };
  }
  const [only, ...others] = candidates;
  if (only === undefined) return { ok: false, reason: 'no_suitable_key' };
  if (others.length > 0) return { ok: false, reason: 'ambiguous' };
  return { ok: true, key: only };
}
