import { constantTimeEqual } from '@keyhold/internal';
import { hmacSha256, toHex } from './hmac.js';
import { dedupeTtlSecondsOf, secretsOf } from './settings.js';
import type { GitHubSignatureVerification, SignatureVerifier } from './types.js';

/**
 * Compiles a GitHub verifier: `X-Hub-Signature-256` must equal `sha256=` and the hex HMAC-SHA256 of the
 * raw body keyed with one of the secrets, compared in constant time. GitHub signs no timestamp, so there
 * is no tolerance window: an accepted signature is returned for deduplication instead, remembered for
 * `dedupeTtlSeconds` (default a day). The key is the signature, not `X-GitHub-Delivery`: that header is not
 * signed, so a replayer could change it at will, while the signature is fixed by the body.
 *
 * @example
 * ```ts
 * const verify = createGitHubVerifier({ scheme: 'github', secrets: [secret] });
 * (await verify(request.headers, request.body, clock.now())).ok;
 * ```
 */
export function createGitHubVerifier(config: GitHubSignatureVerification): SignatureVerifier {
  const signers = secretsOf(config).map((secret) => hmacSha256(secret));
  const dedupeTtlMs = dedupeTtlSecondsOf(config) * 1000;
  return async (headers, body, nowMs) => {
    const presented = headers['x-hub-signature-256'];
    if (presented === undefined) return { ok: false, reason: 'missing X-Hub-Signature-256 header' };
    const signature = presented.toLowerCase();
    let matched = false;
    for (const sign of signers) {
      const expected = `sha256=${toHex(await sign(body))}`;
      if (constantTimeEqual(signature, expected)) matched = true;
    }
    if (!matched) return { ok: false, reason: 'X-Hub-Signature-256 does not match' };
    return { ok: true, replay: { id: `github:${signature}`, expiresAt: nowMs + dedupeTtlMs } };
  };
}
