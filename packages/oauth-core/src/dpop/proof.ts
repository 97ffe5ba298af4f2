import { constantTimeEqual, sha256Base64url } from '@keyhold/internal';
import type { JWK, ProtectedHeaderParameters } from 'jose';
import { calculateJwkThumbprint, decodeProtectedHeader, EmbeddedJWK } from 'jose';
import { verifyJwt } from '../jwt-verification.js';
import { normalizeHtu } from './htu.js';

/** The largest `DPoP` header accepted, in bytes: an RSA-4096 proof is about 1.5 KiB. */
export const MAX_PROOF_BYTES = 8192;
/** The longest `jti` accepted (RFC 9449 §11.1: servers should refuse oversized ones). */
export const MAX_PROOF_JTI_LENGTH = 256;
/** How far a proof's `iat` may be from the server's clock, either way (SEP-1932: ±5 minutes). */
export const PROOF_WINDOW_SECONDS = 300;

/**
 * Why a proof was refused: stable reason codes for security events (never token material). Every one is
 * answered `invalid_dpop_proof` on the wire.
 */
export type DpopRefusalReason =
  | 'dpop.proof_missing'
  | 'dpop.multiple_headers'
  | 'dpop.too_large'
  | 'dpop.proof_malformed'
  | 'dpop.typ_invalid'
  | 'dpop.alg_unsupported'
  | 'dpop.jwk_invalid'
  | 'dpop.jwk_private'
  | 'dpop.signature_invalid'
  | 'dpop.claim_missing'
  | 'dpop.jti_invalid'
  | 'dpop.htm_mismatch'
  | 'dpop.htu_mismatch'
  | 'dpop.iat_out_of_window'
  | 'dpop.ath_mismatch'
  | 'dpop.replayed'
  | 'dpop.key_mismatch';

/** What the request the proof comes with must match. */
export interface ProofExpectations {
  /** The request's method, as received. */
  readonly method: string;
  /** The endpoint's public URL (from the configured issuer or resource URL, never from `Host`). */
  readonly url: string;
  /** At a resource: the access token the proof must be bound to (`ath`). */
  readonly accessToken?: string;
  readonly algorithms: readonly string[];
  readonly nowMs: number;
}

/** A proof that passed every local check of RFC 9449 §4.3 (its `jti` is not spent yet). */
export interface VerifiedProof {
  /** The RFC 7638 SHA-256 thumbprint of the proof's key. */
  readonly jkt: string;
  readonly jti: string;
  readonly htm: string;
  readonly htu: string;
  readonly iat: number;
  readonly nonce?: string;
}

/** The outcome of {@link verifyDpopProof}. */
export type ProofCheck =
  | { readonly ok: true; readonly proof: VerifiedProof }
  | { readonly ok: false; readonly reason: DpopRefusalReason; readonly description: string };

// Members that only a private or symmetric key carries (RFC 9449 §4.2: the jwk MUST NOT hold a private key).
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'] as const;
// The signature may be empty here so that an unsigned proof is refused for its alg, the clearer reason.
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

function refuse(reason: DpopRefusalReason, description: string): ProofCheck {
  return { ok: false, reason, description };
}

/**
 * RFC 9449 §4.3, every check but the nonce and the `jti` replay (stateful: the callers' job, after this):
 * one header, one compact JWS of bounded size, `typ: dpop+jwt`, an asymmetric `alg` of the allow-list, a
 * public `jwk`, the signature verified with it through jose, `jti`/`htm`/`htu`/`iat` present, `htm` the
 * method, `htu` the endpoint's public URL (both normalised, no query or fragment), `iat` within
 * ±{@link PROOF_WINDOW_SECONDS} of the injected clock, and `ath` when a token is presented.
 *
 * @example
 * ```ts
 * const check = await verifyDpopProof(request.headers.dpop, { method: 'POST', url: `${issuer}/token`, algorithms, nowMs });
 * if (!check.ok) throw new OAuthError('invalid_dpop_proof', check.description);
 * ```
 */
export async function verifyDpopProof(
  header: string | undefined,
  expected: ProofExpectations,
): Promise<ProofCheck> {
  if (header === undefined || header === '') return refuse('dpop.proof_missing', 'a DPoP proof is required');
  // Node and fetch join repeated headers with ", ": a comma means more than one (RFC 9449 §4.3 (1)).
  if (header.includes(',')) return refuse('dpop.multiple_headers', 'exactly one DPoP header is allowed');
  if (header.length > MAX_PROOF_BYTES) return refuse('dpop.too_large', 'the DPoP proof is too large');
  const proof = header.trim();
  if (!COMPACT_JWS.test(proof)) return refuse('dpop.proof_malformed', 'the DPoP proof is not a compact JWS');
  let protectedHeader: ProtectedHeaderParameters;
  try {
    protectedHeader = decodeProtectedHeader(proof);
  } catch {
    return refuse('dpop.proof_malformed', 'the DPoP proof header is not valid JSON');
  }
  if (protectedHeader.typ !== 'dpop+jwt')
    return refuse('dpop.typ_invalid', 'the DPoP proof typ must be dpop+jwt');
  if (typeof protectedHeader.alg !== 'string' || !expected.algorithms.includes(protectedHeader.alg)) {
    return refuse(
      'dpop.alg_unsupported',
      `the DPoP proof alg must be one of ${expected.algorithms.join(', ')}`,
    );
  }
  const jwk = protectedHeader.jwk as JWK | undefined;
  if (typeof jwk !== 'object' || jwk === null || Array.isArray(jwk)) {
    return refuse('dpop.jwk_invalid', 'the DPoP proof must carry its public key as jwk');
  }
  if (PRIVATE_MEMBERS.some((member) => Object.hasOwn(jwk, member))) {
    return refuse('dpop.jwk_private', 'the DPoP proof jwk must not contain a private key');
  }
  const verification = await verifyJwt(proof, EmbeddedJWK, {
    algorithms: expected.algorithms,
    typ: 'dpop+jwt',
    requiredClaims: ['jti', 'htm', 'htu', 'iat'],
    nowMs: expected.nowMs,
  });
  if (!verification.ok) {
    if (verification.code === 'ERR_JWT_CLAIM_VALIDATION_FAILED') {
      return refuse(
        'dpop.claim_missing',
        `the DPoP proof ${verification.claim ?? 'claims'} claim is missing or invalid`,
      );
    }
    if (verification.code === 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED') {
      return refuse('dpop.signature_invalid', 'the DPoP proof signature does not verify');
    }
    return refuse('dpop.proof_malformed', 'the DPoP proof is not a valid JWT');
  }
  const { payload } = verification;
  const { jti, htm, htu, iat, ath, nonce } = payload as Record<string, unknown>;
  if (typeof jti !== 'string' || jti === '' || jti.length > MAX_PROOF_JTI_LENGTH) {
    return refuse(
      'dpop.jti_invalid',
      `the DPoP proof jti must be a string of 1 to ${MAX_PROOF_JTI_LENGTH} characters`,
    );
  }
  if (typeof htm !== 'string' || htm !== expected.method) {
    return refuse('dpop.htm_mismatch', 'the DPoP proof htm does not match the request method');
  }
  const presentedUrl = typeof htu === 'string' ? normalizeHtu(htu) : undefined;
  if (presentedUrl === undefined || presentedUrl !== normalizeHtu(expected.url)) {
    return refuse('dpop.htu_mismatch', 'the DPoP proof htu does not match this endpoint');
  }
  if (typeof iat !== 'number' || !Number.isFinite(iat)) {
    return refuse('dpop.claim_missing', 'the DPoP proof iat claim is missing or invalid');
  }
  if (Math.abs(iat - expected.nowMs / 1000) > PROOF_WINDOW_SECONDS) {
    return refuse('dpop.iat_out_of_window', 'the DPoP proof is too old or too far in the future');
  }
  if (expected.accessToken !== undefined) {
    if (typeof ath !== 'string' || !constantTimeEqual(ath, sha256Base64url(expected.accessToken))) {
      return refuse('dpop.ath_mismatch', 'the DPoP proof ath does not match the access token');
    }
  }
  if (nonce !== undefined && typeof nonce !== 'string') {
    return refuse('dpop.claim_missing', 'the DPoP proof nonce claim must be a string');
  }
  const jkt = await calculateJwkThumbprint(jwk, 'sha256');
  return {
    ok: true,
    proof: {
      jkt,
      jti,
      htm,
      htu: presentedUrl,
      iat,
      ...(typeof nonce === 'string' ? { nonce } : {}),
    },
  };
}
