import { randomToken, sha256Base64url } from '@keyhold/internal';

/** A PKCE pair (RFC 7636): the verifier stays with the broker, the challenge goes to the provider. */
export interface PkcePair {
  readonly codeVerifier: string;
  readonly codeChallenge: string;
  readonly codeChallengeMethod: 'S256';
}

/**
 * Creates a PKCE pair: 32 random bytes, base64url, as the verifier (43 characters) and its S256 challenge.
 *
 * @example
 * ```ts
 * const { codeVerifier, codeChallenge } = createPkcePair();
 * ```
 */
export function createPkcePair(): PkcePair {
  const codeVerifier = randomToken(32);
  return { codeVerifier, codeChallenge: s256Challenge(codeVerifier), codeChallengeMethod: 'S256' };
}

/**
 * The S256 code challenge of a verifier: base64url(SHA-256(ASCII(verifier))).
 *
 * @example
 * ```ts
 * s256Challenge('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk'); // 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM'
 * ```
 */
export function s256Challenge(codeVerifier: string): string {
  // A verifier is ASCII (RFC 7636 §4.1), so its UTF-8 is its ASCII.
  return sha256Base64url(codeVerifier);
}
