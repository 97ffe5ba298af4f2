import { base64urlEncode, constantTimeEqual } from '@keyhold/internal';

/** Nonces change every this many seconds (RFC 9449 §8: the server chooses their lifetime). */
export const NONCE_STEP_SECONDS = 60;
/** Steps before the current one still accepted (a nonce lives 2 to 3 minutes), and one after (clock skew between instances). */
const PAST_STEPS = 2;
const FUTURE_STEPS = 1;

/**
 * Stateless DPoP nonces (RFC 9449 §8, §9) of one server: the nonce of a time step is the HMAC-SHA-256 of the
 * step under the deployment's secret, keyed by a label naming the server (`as:<issuer>` or `rs:<resource>`),
 * so every instance holding the secret issues and accepts the same values, and a nonce of one server is
 * never accepted by another (§9: nonces are valid only where they were issued). Nothing is stored.
 */
export interface NonceSource {
  /** The nonce to hand out now (`DPoP-Nonce`). */
  current(nowMs: number): Promise<string>;
  /** Whether `nonce` is this server's nonce of the current step, one of the two before, or the next. */
  accepts(nonce: string, nowMs: number): Promise<boolean>;
}

const encoder = new TextEncoder();

/**
 * Derives one server's nonce source from the deployment secret (WebCrypto, on every runtime).
 *
 * @example
 * ```ts
 * const nonces = createNonceSource(secret, `as:${tenant.issuer}`);
 * const nonce = await nonces.current(Date.now());
 * ```
 */
export function createNonceSource(secret: Uint8Array, label: string): NonceSource {
  const key = crypto.subtle.importKey(
    'raw',
    secret as Uint8Array<ArrayBuffer>,
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  // A few recent steps, so a busy server signs about once a minute instead of per request.
  const recent = new Map<number, Promise<string>>();
  const nonceOf = (step: number): Promise<string> => {
    let value = recent.get(step);
    if (value === undefined) {
      value = key
        .then((hmac) =>
          crypto.subtle.sign('HMAC', hmac, encoder.encode(`keyhold-dpop-nonce/1\n${label}\n${step}`)),
        )
        .then((mac) => base64urlEncode(new Uint8Array(mac)));
      recent.set(step, value);
      if (recent.size > 8) recent.delete(recent.keys().next().value as number);
    }
    return value;
  };
  const stepAt = (nowMs: number): number => Math.floor(nowMs / 1000 / NONCE_STEP_SECONDS);
  return {
    current: (nowMs) => nonceOf(stepAt(nowMs)),
    async accepts(nonce, nowMs) {
      const step = stepAt(nowMs);
      let accepted = false;
      // Every candidate is compared, so the time does not tell which step matched.
      for (let offset = -PAST_STEPS; offset <= FUTURE_STEPS; offset++) {
        if (constantTimeEqual(nonce, await nonceOf(step + offset))) accepted = true;
      }
      return accepted;
    },
  };
}
