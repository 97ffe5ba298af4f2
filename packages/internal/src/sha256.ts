import { base64urlEncode } from './base64url.js';
import { sha256Portable } from './sha256-portable.js';

/** The part of node:crypto this file uses. */
interface NodeHashing {
  createHash(algorithm: 'sha256'): {
    update(value: string, encoding: 'utf8'): { digest(encoding: 'base64url'): string };
  };
}

// Node's native hash where the runtime has one, reached without an import so that a main entry names no Node
// built-in (a worker without `nodejs_compat` loads it); the portable digest everywhere else.
const nodeCrypto = (
  globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }
).process?.getBuiltinModule?.('node:crypto') as NodeHashing | undefined;

const encoder = new TextEncoder();

/**
 * The SHA-256 digest of a UTF-8 string, base64url-encoded: the form in which Keyhold stores values that only
 * ever need comparing (client secrets, refresh tokens, codes), and an S256 PKCE challenge.
 *
 * @example
 * ```ts
 * const stored = sha256Base64url(clientSecret);
 * constantTimeEqual(sha256Base64url(presented), stored);
 * ```
 */
export function sha256Base64url(value: string): string {
  if (nodeCrypto !== undefined)
    return nodeCrypto.createHash('sha256').update(value, 'utf8').digest('base64url');
  return base64urlEncode(sha256Portable(encoder.encode(value)));
}
