import { onceKey, sha256Base64url } from '@keyhold/internal';
import type { DpopRefusalReason, VerifiedProof } from './proof.js';
import { PROOF_WINDOW_SECONDS, verifyDpopProof } from './proof.js';
import type { DpopSettings } from './settings.js';

/** Why a proof was refused, all local checks and state included. */
export type DpopCheckRefusal =
  | {
      readonly ok: false;
      readonly kind: 'proof';
      readonly reason: DpopRefusalReason;
      readonly description: string;
    }
  | {
      readonly ok: false;
      readonly kind: 'nonce';
      readonly reason: 'dpop.nonce_required' | 'dpop.nonce_invalid';
      readonly description: string;
      /** The nonce to send back (`DPoP-Nonce`). */
      readonly nonce: string;
    };

/**
 * The outcome of {@link checkDpopProof}. An accepted proof may come with `nonce`: this server's current
 * nonce, when nonces are required and the proof carried another one (a still-accepted older step's, or the
 * next step's from an instance whose clock runs ahead). The answer sends it as `DPoP-Nonce` (RFC 9449 §8.2
 * for the token endpoint, §9 for a resource), so the client moves to it before its nonce expires instead
 * of paying a `use_dpop_nonce` round trip. Only when it differs, as node-oidc-provider does: a client
 * already on the current nonce gets no header, and the value changes once a step (a minute).
 */
export type DpopCheck =
  | { readonly ok: true; readonly proof: VerifiedProof; readonly nonce?: string }
  | DpopCheckRefusal;

/** One server's side of a proof check: where the request went and which nonces are its own. */
export interface DpopTarget {
  readonly method: string;
  /** The endpoint's public URL. */
  readonly url: string;
  /** `as:<issuer>` or `rs:<resource>`: whose nonces these are. */
  readonly nonceLabel: string;
  readonly accessToken?: string;
  readonly nowMs: number;
}

/**
 * A whole proof check: RFC 9449 §4.3 (see `verifyDpopProof`), then the nonce when nonces are required
 * (§8, §9), then — after every local check, so a bad proof spends nothing — the `jti` spent once through the
 * deployment's spend-once store, keyed by the normalised key thumbprint, method, URL and `jti` (hashed: a
 * client cannot make two spellings of one proof count twice). A store outage throws
 * `StorageUnavailableError`: the request is refused (fails closed), never let through twice.
 *
 * @example
 * ```ts
 * const check = await checkDpopProof(settings, request.headers.dpop, { method: 'POST', url, nonceLabel: `as:${issuer}`, nowMs });
 * ```
 */
export async function checkDpopProof(
  settings: DpopSettings,
  header: string | undefined,
  target: DpopTarget,
): Promise<DpopCheck> {
  const verified = await verifyDpopProof(header, {
    method: target.method,
    url: target.url,
    algorithms: settings.algorithms,
    nowMs: target.nowMs,
    ...(target.accessToken === undefined ? {} : { accessToken: target.accessToken }),
  });
  if (!verified.ok)
    return { ok: false, kind: 'proof', reason: verified.reason, description: verified.description };
  const { proof } = verified;
  let fresh: string | undefined;
  if (settings.requireNonce && settings.nonces !== undefined) {
    const nonces = settings.nonces(target.nonceLabel);
    const current = await nonces.current(target.nowMs);
    if (proof.nonce === undefined || !(await nonces.accepts(proof.nonce, target.nowMs))) {
      return {
        ok: false,
        kind: 'nonce',
        reason: proof.nonce === undefined ? 'dpop.nonce_required' : 'dpop.nonce_invalid',
        description:
          proof.nonce === undefined
            ? 'this server requires a DPoP nonce: retry with the DPoP-Nonce it sent'
            : 'the DPoP nonce is not current: retry with the DPoP-Nonce it sent',
        nonce: current,
      };
    }
    // Nonces are public values (sent in clear headers): a plain comparison tells nothing.
    if (proof.nonce !== current) fresh = current;
  }
  const replayKey = onceKey('dpop', sha256Base64url(`${proof.jkt} ${proof.htm} ${proof.htu} ${proof.jti}`));
  // Kept for as long as the proof could be accepted, plus a second of rounding.
  const expiresAt = (proof.iat + PROOF_WINDOW_SECONDS + 1) * 1000;
  if (!(await settings.onceStore.consume(replayKey, expiresAt, target.nowMs))) {
    return {
      ok: false,
      kind: 'proof',
      reason: 'dpop.replayed',
      description: 'the DPoP proof was already used',
    };
  }
  return { ok: true, proof, ...(fresh === undefined ? {} : { nonce: fresh }) };
}
