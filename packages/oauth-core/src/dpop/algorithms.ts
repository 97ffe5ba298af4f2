/**
 * The proof algorithms offered by default (`dpop_signing_alg_values_supported`): asymmetric only (RFC 9449
 * §11.6), ES256 first as SEP-1932 asks servers to support it.
 */
export const DEFAULT_DPOP_ALGORITHMS: readonly string[] = [
  'ES256',
  'ES384',
  'ES512',
  'PS256',
  'RS256',
  'EdDSA',
  'Ed25519',
];

/**
 * Every algorithm a host may list: the asymmetric JWS algorithms jose verifies. `none` and the MAC
 * algorithms (`HS*`) are absent on purpose: a proof's key is in the proof, so a MAC proves nothing.
 */
export const ASYMMETRIC_ALGORITHMS: ReadonlySet<string> = new Set([
  'ES256',
  'ES384',
  'ES512',
  'PS256',
  'PS384',
  'PS512',
  'RS256',
  'RS384',
  'RS512',
  'EdDSA',
  'Ed25519',
]);
