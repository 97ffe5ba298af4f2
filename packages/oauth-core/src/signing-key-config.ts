// The shape of a tenant's signing keys, apart from the code that checks and imports them.
import type { JWK } from 'jose';

/**
 * The symmetric algorithms a tenant key may use.
 */
export type SymmetricAlgorithm = 'HS256' | 'HS384' | 'HS512';
/**
 * The asymmetric algorithms a tenant key may use; their public keys are published in the JWKS.
 */
export type AsymmetricAlgorithm = 'RS256' | 'ES256';
/**
 * Every JWS algorithm the server signs with.
 *
 * @example
 * ```ts
 * await generateSigningKey('RS256' satisfies SigningAlgorithm, 'k1');
 * ```
 */
export type SigningAlgorithm = SymmetricAlgorithm | AsymmetricAlgorithm;

/**
 * One signing key of a tenant. A tenant lists several so a new key can be published before it signs:
 * verification accepts every listed key, signing uses the one marked `active` (or the first when none is).
 *
 * @example
 * ```ts
 * const keys: SigningKeyConfig[] = [
 *   { kid: '2026-02', alg: 'ES256', privateKey: newJwk, active: true },
 *   { kid: '2026-01', alg: 'ES256', privateKey: oldJwk },
 * ];
 * ```
 */
export type SigningKeyConfig =
  | {
      readonly kid: string;
      readonly alg: SymmetricAlgorithm;
      /** At least as many bytes as the hash (32, 48 or 64); a string is taken as UTF-8. */
      readonly secret: Uint8Array | string;
      readonly active?: boolean;
    }
  | {
      readonly kid: string;
      readonly alg: AsymmetricAlgorithm;
      /** A private JWK, or a PKCS#8 PEM string. */
      readonly privateKey: JWK | string;
      readonly active?: boolean;
    };
