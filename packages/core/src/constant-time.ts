import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Compares two strings in constant time with respect to their content. Both sides are hashed with
 * SHA-256 first, so inputs of different lengths compare without throwing and without an early exit.
 *
 * @example
 * ```ts
 * if (!constantTimeEqual(request.headers['x-webhook-secret'] ?? '', secret)) return unauthorized();
 * ```
 */
export function constantTimeEqual(a: string, b: string): boolean {
  const left = createHash('sha256').update(a, 'utf8').digest();
  const right = createHash('sha256').update(b, 'utf8').digest();
  // The hashes are equal in length by construction; the final `a === b` guards only against a hash
  // collision, and runs after the constant-time step has already decided almost every case.
  return timingSafeEqual(left, right) && a.length === b.length;
}

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
