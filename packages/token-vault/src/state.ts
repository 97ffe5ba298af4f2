import { createHmac, timingSafeEqual } from 'node:crypto';
import { base64urlEncode } from '@keyhold/core';
import * as z from 'zod';

/** The maximum age of a signed state (the spec's five minutes). */
export const STATE_MAX_AGE_MS: number = 5 * 60 * 1000;

// A state minted by a host whose clock runs a little ahead still verifies; a state from the far future does not.
const FUTURE_SKEW_MS = 60 * 1000;
const SIGNATURE_BYTES = 32;
const SEPARATOR = 0x7c; // '|'

/** What the signed state carries through the provider's redirect. */
export interface StatePayload {
  readonly sessionId: string;
  readonly elicitationId: string;
  readonly toolModuleId: string;
  readonly provider: string;
  /** Single-use: the pending authorization is stored under its hash and consumed by the callback. */
  readonly nonce: string;
  /** When the state was minted (epoch ms). */
  readonly timestamp: number;
  readonly tenantId: string;
  readonly userId: string;
}

const payloadSchema = z.strictObject({
  sessionId: z.string(),
  elicitationId: z.string(),
  toolModuleId: z.string(),
  provider: z.string(),
  nonce: z.string().min(1),
  timestamp: z.number().int(),
  tenantId: z.string(),
  userId: z.string(),
});

/** Why a state was refused. */
export type StateRejection = 'malformed' | 'bad_signature' | 'expired';

/** The outcome of {@link verifyState}. */
export type StateVerification =
  | { readonly ok: true; readonly payload: StatePayload }
  | { readonly ok: false; readonly reason: StateRejection };

function hmac(secret: Uint8Array, payload: Uint8Array): Buffer {
  return createHmac('sha256', secret).update(payload).digest();
}

/**
 * Signs a state: `base64url(payload | signature)`, where payload is the JSON of {@link StatePayload}, `|` one
 * byte, and signature the 32-byte HMAC-SHA256 of the payload bytes under the state secret.
 *
 * @example
 * ```ts
 * const state = signState(payload, secret);
 * ```
 */
export function signState(payload: StatePayload, secret: Uint8Array): string {
  const json = Buffer.from(JSON.stringify(payload), 'utf8');
  return base64urlEncode(Buffer.concat([json, Buffer.from([SEPARATOR]), hmac(secret, json)]));
}

/**
 * Verifies a state's signature (in constant time) and age: at most five minutes old at `now`.
 *
 * @example
 * ```ts
 * const verified = verifyState(query.state, secret, clock.now());
 * if (!verified.ok) return rejected(verified.reason);
 * ```
 */
export function verifyState(state: string, secret: Uint8Array, now: number): StateVerification {
  if (!/^[A-Za-z0-9_-]{1,4096}$/.test(state)) return { ok: false, reason: 'malformed' };
  const bytes = Buffer.from(state, 'base64url');
  const split = bytes.length - SIGNATURE_BYTES - 1;
  if (split < 2 || bytes[split] !== SEPARATOR) return { ok: false, reason: 'malformed' };
  const json = bytes.subarray(0, split);
  if (!timingSafeEqual(hmac(secret, json), bytes.subarray(split + 1))) {
    return { ok: false, reason: 'bad_signature' };
  }
  let decoded: unknown;
  try {
    decoded = JSON.parse(json.toString('utf8'));
  } catch {
    return { ok: false, reason: 'malformed' };
  }
  const parsed = payloadSchema.safeParse(decoded);
  if (!parsed.success) return { ok: false, reason: 'malformed' };
  const age = now - parsed.data.timestamp;
  if (age > STATE_MAX_AGE_MS || age < -FUTURE_SKEW_MS) return { ok: false, reason: 'expired' };
  return { ok: true, payload: parsed.data };
}
