import { constantTimeEqual } from '@keyhold/internal';
import { check } from '../option-checks.js';
import { hmacSha256, toBase64 } from './hmac.js';
import { dedupeTtlSecondsOf, secretsOf, toleranceSecondsOf } from './settings.js';
import type { SignatureVerifier, StandardWebhooksVerification } from './types.js';

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const TIMESTAMP = /^\d{1,12}$/;
/** The Standard Webhooks specification asks for keys of 24 to 64 bytes. */
const MIN_KEY_BYTES = 24;
const MAX_KEY_BYTES = 64;

function decodeSecret(secret: string, index: number): Uint8Array<ArrayBuffer> {
  const encoded = secret.startsWith('whsec_') ? secret.slice(6) : secret;
  const key = BASE64.test(encoded) ? Uint8Array.from(atob(encoded), (c) => c.charCodeAt(0)) : undefined;
  if (key === undefined || key.length < MIN_KEY_BYTES || key.length > MAX_KEY_BYTES) {
    throw check.invalid(
      `standard-webhooks secret #${index + 1} must be "whsec_" followed by base64 of ${MIN_KEY_BYTES} to ${MAX_KEY_BYTES} bytes`,
    );
  }
  return key;
}

/**
 * Compiles a Standard Webhooks v1 verifier: HMAC-SHA256 over `${webhook-id}.${webhook-timestamp}.${body}`,
 * base64, compared in constant time with every `v1,` entry of the space-separated `webhook-signature`
 * list, for every configured secret. The timestamp must be within the tolerance either way; the
 * accepted `webhook-id` is returned for deduplication.
 *
 * @example
 * ```ts
 * const verify = createStandardWebhooksVerifier({ scheme: 'standard-webhooks', secrets: ['whsec_…'] });
 * await verify(request.headers, request.body, clock.now()); // { ok: true, replay: { id: 'msg_…', expiresAt } }
 * ```
 */
export function createStandardWebhooksVerifier(config: StandardWebhooksVerification): SignatureVerifier {
  const signers = secretsOf(config).map((secret, index) => hmacSha256(decodeSecret(secret, index)));
  const toleranceSeconds = toleranceSecondsOf(config);
  const dedupeTtlMs = dedupeTtlSecondsOf(config) * 1000;
  return async (headers, body, nowMs) => {
    const id = headers['webhook-id'];
    const timestamp = headers['webhook-timestamp'];
    const signatures = headers['webhook-signature'];
    if (id === undefined || id === '' || timestamp === undefined || signatures === undefined) {
      return { ok: false, reason: 'missing webhook-id, webhook-timestamp or webhook-signature header' };
    }
    if (!TIMESTAMP.test(timestamp)) return { ok: false, reason: 'webhook-timestamp is not a Unix time' };
    const sentSeconds = Number(timestamp);
    if (Math.abs(nowMs / 1000 - sentSeconds) > toleranceSeconds) {
      return { ok: false, reason: 'webhook-timestamp is outside the tolerance' };
    }
    const presented = signatures
      .split(' ')
      .filter((entry) => entry.startsWith('v1,'))
      .map((entry) => entry.slice(3));
    const content = `${id}.${timestamp}.${body}`;
    let matched = false;
    for (const sign of signers) {
      const expected = toBase64(await sign(content));
      // No early exit: every pair is compared, so timing says nothing about which one matched.
      for (const signature of presented) if (constantTimeEqual(signature, expected)) matched = true;
    }
    if (!matched) return { ok: false, reason: 'no webhook-signature entry matches' };
    // Keep the id at least as long as the timestamp could still pass, so a replay is never accepted.
    const expiresAt = Math.max((sentSeconds + toleranceSeconds) * 1000, nowMs + dedupeTtlMs);
    return { ok: true, replay: { id, expiresAt } };
  };
}
