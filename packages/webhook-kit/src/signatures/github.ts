import { createHmac } from 'node:crypto';
import { constantTimeEqual } from '@keyhold/core';
import { secretsOf } from './settings.js';
import type { GitHubSignatureVerification, SignatureVerifier } from './types.js';

/**
 * Compiles a GitHub verifier: `X-Hub-Signature-256` must equal `sha256=` and the hex HMAC-SHA256 of the
 * raw body keyed with one of the secrets, compared in constant time. GitHub signs no timestamp, so there
 * is no tolerance window.
 *
 * @example
 * ```ts
 * const verify = createGitHubVerifier({ scheme: 'github', secrets: [secret] });
 * verify(request.headers, request.body, clock.now()).ok;
 * ```
 */
export function createGitHubVerifier(config: GitHubSignatureVerification): SignatureVerifier {
  const secrets = secretsOf(config);
  return (headers, body) => {
    const presented = headers['x-hub-signature-256'];
    if (presented === undefined) return { ok: false, reason: 'missing X-Hub-Signature-256 header' };
    let matched = false;
    for (const secret of secrets) {
      const expected = `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;
      if (constantTimeEqual(presented.toLowerCase(), expected)) matched = true;
    }
    return matched ? { ok: true } : { ok: false, reason: 'X-Hub-Signature-256 does not match' };
  };
}
