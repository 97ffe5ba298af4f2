import type { CryptoKey, EmbeddedJWK, JWK, JWTHeaderParameters, JWTPayload } from 'jose';
import { errors, jwtVerify } from 'jose';

/** What a JWT must be to be accepted; jose checks all of it. */
export interface JwtExpectations {
  /** The only `alg` values accepted (never `none`, never left to the key): at least one. */
  readonly algorithms: readonly string[];
  /** The `typ` header required (jose compares case-insensitively, `application/` implied). */
  readonly typ?: string;
  readonly issuer?: string;
  readonly subject?: string;
  /** Claims that must be present, besides those the options above imply. */
  readonly requiredClaims?: readonly string[];
  readonly nowMs: number;
  readonly clockToleranceSeconds?: number;
}

/**
 * The outcome of {@link verifyJwt}: the verified payload, or jose's error code (`ERR_JWT_EXPIRED`,
 * `ERR_JWS_SIGNATURE_VERIFICATION_FAILED`, `ERR_JWT_CLAIM_VALIDATION_FAILED` with the claim, …) for the
 * caller to turn into its own description.
 */
export type JwtVerification =
  | { readonly ok: true; readonly payload: JWTPayload; readonly header: JWTHeaderParameters }
  | { readonly ok: false; readonly code: string; readonly claim?: string };

/**
 * The one place a JWS is verified and a JWT's claims judged: jose's `jwtVerify`, on every runtime, with
 * the algorithms always explicit. jose refuses what RFC 7515/7519 say to refuse (an unknown `crit`,
 * `b64: false`, an `alg` outside the list, a bad signature, a non-object payload) and checks `typ`,
 * `iss`, `sub`, `exp`, `nbf` and `iat` as asked. Errors that are not jose's (a bug, a key the platform
 * cannot use) are thrown.
 */
export async function verifyJwt(
  token: string,
  key: CryptoKey | Uint8Array | JWK | typeof EmbeddedJWK,
  expected: JwtExpectations,
): Promise<JwtVerification> {
  if (expected.algorithms.length === 0) throw new TypeError('verifyJwt needs at least one algorithm');
  try {
    const options = {
      algorithms: [...expected.algorithms],
      currentDate: new Date(expected.nowMs),
      ...(expected.typ === undefined ? {} : { typ: expected.typ }),
      ...(expected.issuer === undefined ? {} : { issuer: expected.issuer }),
      ...(expected.subject === undefined ? {} : { subject: expected.subject }),
      ...(expected.requiredClaims === undefined ? {} : { requiredClaims: [...expected.requiredClaims] }),
      ...(expected.clockToleranceSeconds === undefined
        ? {}
        : { clockTolerance: expected.clockToleranceSeconds }),
    };
    // Two calls for jose's two overloads: a key, or a function finding it in the token (a DPoP proof's jwk).
    const { payload, protectedHeader } =
      typeof key === 'function' ? await jwtVerify(token, key, options) : await jwtVerify(token, key, options);
    return { ok: true, payload, header: protectedHeader };
  } catch (error) {
    if (error instanceof errors.JWTClaimValidationFailed || error instanceof errors.JWTExpired) {
      return { ok: false, code: error.code, claim: error.claim };
    }
    if (error instanceof errors.JOSEError) return { ok: false, code: error.code };
    throw error;
  }
}
