import { constantTimeEqual } from '@keyhold/internal';
import { hmacSha256, toHex } from './hmac.js';
import { secretsOf, toleranceSecondsOf } from './settings.js';
import type { SignatureVerifier, StripeSignatureVerification } from './types.js';

const TIMESTAMP = /^\d{1,12}$/;

/**
 * Compiles a Stripe verifier: `Stripe-Signature` carries `t=<seconds>` and one or more `v1=<hex>`; a `v1`
 * must equal the hex HMAC-SHA256 of `${t}.${body}` keyed with one of the endpoint secrets (the whole
 * `whsec_…` string, as Stripe uses it), compared in constant time, and `t` must be within the tolerance.
 * Unlike Stripe's own library, a timestamp too far in the future is refused too, and an accepted signature is
 * returned for deduplication until its timestamp leaves the tolerance, so the same delivery replayed within
 * the window reaches its method once (Stripe's own retries carry a new `t`, so they are new deliveries).
 *
 * @example
 * ```ts
 * const verify = createStripeVerifier({ scheme: 'stripe', secrets: ['whsec_…'] });
 * (await verify(request.headers, request.body, clock.now())).ok;
 * ```
 */
export function createStripeVerifier(config: StripeSignatureVerification): SignatureVerifier {
  const signers = secretsOf(config).map((secret) => hmacSha256(secret));
  const toleranceSeconds = toleranceSecondsOf(config);
  return async (headers, body, nowMs) => {
    const header = headers['stripe-signature'];
    if (header === undefined) return { ok: false, reason: 'missing Stripe-Signature header' };
    let timestamp: string | undefined;
    const presented: string[] = [];
    for (const item of header.split(',')) {
      const eq = item.indexOf('=');
      if (eq === -1) continue;
      const name = item.slice(0, eq).trim();
      const value = item.slice(eq + 1).trim();
      if (name === 't' && timestamp === undefined) timestamp = value;
      else if (name === 'v1') presented.push(value);
    }
    if (timestamp === undefined || !TIMESTAMP.test(timestamp) || presented.length === 0) {
      return { ok: false, reason: 'Stripe-Signature lacks t or v1' };
    }
    if (Math.abs(nowMs / 1000 - Number(timestamp)) > toleranceSeconds) {
      return { ok: false, reason: 'Stripe-Signature timestamp is outside the tolerance' };
    }
    const content = `${timestamp}.${body}`;
    let matched: string | undefined;
    for (const sign of signers) {
      const expected = toHex(await sign(content));
      for (const signature of presented) if (constantTimeEqual(signature, expected)) matched ??= expected;
    }
    if (matched === undefined) return { ok: false, reason: 'no Stripe-Signature v1 matches' };
    // Keyed on what was verified (t and the matching HMAC), not on the header as sent: adding or reordering
    // entries does not make a replay new. Kept while `t` could still pass the tolerance.
    const expiresAt = (Number(timestamp) + toleranceSeconds) * 1000 + 1000;
    return { ok: true, replay: { id: `stripe:${timestamp}:${matched}`, expiresAt } };
  };
}
