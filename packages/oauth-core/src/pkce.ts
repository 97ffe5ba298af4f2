import { constantTimeEqual, sha256Base64url } from '@keyhold/internal';

// RFC 7636 §4.1: 43–128 characters of the unreserved set. An S256 challenge is always 43 characters.
const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;
const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

/** Whether a code_challenge has the shape of an S256 challenge. */
export function isS256Challenge(challenge: string): boolean {
  return S256_CHALLENGE.test(challenge);
}

/** Whether `verifier` is well formed and hashes (S256) to `challenge`. */
export function verifyPkce(verifier: string, challenge: string): boolean {
  if (!VERIFIER.test(verifier)) return false;
  // The verifier matched the unreserved set, so its UTF-8 is its ASCII.
  const computed = sha256Base64url(verifier);
  return constantTimeEqual(computed, challenge);
}
