import { createHash } from 'node:crypto';

// Synchronous SHA-256 is Node's alone (WebCrypto's digest is async); moving its callers to `await` is
// tracked in issue 28 ("main entries free of Node built-ins").

/**
 * The SHA-256 digest of a UTF-8 string, base64url-encoded: the form in which Keyhold stores values that only
 * ever need comparing (client secrets, refresh tokens, codes).
 *
 * @example
 * ```ts
 * const stored = sha256Base64url(clientSecret);
 * constantTimeEqual(sha256Base64url(presented), stored);
 * ```
 */
export function sha256Base64url(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('base64url');
}
