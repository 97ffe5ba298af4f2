import type { OnceStore } from '@keyhold/core';
import { optionCheck } from '../errors.js';
import { ASYMMETRIC_ALGORITHMS, DEFAULT_DPOP_ALGORITHMS } from './algorithms.js';
import { createNonceSource, type NonceSource } from './nonce.js';

/** The `dpop` option of the authorization server, as a host writes it. */
export interface DpopOptionsInput {
  readonly nonceSecret?: string | Uint8Array;
  readonly requireNonce?: boolean;
  readonly signingAlgorithms?: readonly string[];
}

/** DPoP as the handlers use it: on when the storage has a spend-once store and the host did not turn it off. */
export interface DpopSettings {
  readonly algorithms: readonly string[];
  readonly onceStore: OnceStore;
  /** Whether every proof must carry a nonce of this server (then `nonces` exists). */
  readonly requireNonce: boolean;
  /** The nonce source of one server (`as:<issuer>`, `rs:<resource>`); present when a secret was given. */
  readonly nonces?: (label: string) => NonceSource;
}

/** The shortest nonce secret accepted: 256 bits, as the HMAC key. */
const MIN_SECRET_BYTES = 32;

function secretBytes(secret: string | Uint8Array): Uint8Array {
  const bytes = typeof secret === 'string' ? new TextEncoder().encode(secret) : secret;
  if (!(bytes instanceof Uint8Array) || bytes.length < MIN_SECRET_BYTES) {
    throw optionCheck.invalid(`dpop.nonceSecret must be at least ${MIN_SECRET_BYTES} bytes`);
  }
  // A copy: the host may reuse its buffer.
  return new Uint8Array(bytes);
}

/**
 * Validates the `dpop` option once. DPoP needs the spend-once store (proof `jti` replay across instances),
 * so without `storage.onceStore` it is off, and asking for it then is an error. Nonces are required exactly
 * when a `nonceSecret` is given (every instance must share it, or one would refuse another's nonces),
 * unless `requireNonce: false` says otherwise.
 */
export function resolveDpop(
  option: false | DpopOptionsInput | undefined,
  onceStore: OnceStore | undefined,
): DpopSettings | undefined {
  if (option === false) return undefined;
  if (option !== undefined && (typeof option !== 'object' || option === null)) {
    throw optionCheck.invalid('dpop must be false or an object');
  }
  if (onceStore === undefined) {
    if (option !== undefined) {
      throw optionCheck.invalid('dpop needs storage.onceStore: proofs must be single use across instances');
    }
    return undefined;
  }
  const algorithms = option?.signingAlgorithms ?? DEFAULT_DPOP_ALGORITHMS;
  if (!Array.isArray(algorithms) || algorithms.length === 0) {
    throw optionCheck.invalid('dpop.signingAlgorithms must be a non-empty array');
  }
  for (const alg of algorithms) {
    if (!ASYMMETRIC_ALGORITHMS.has(alg)) {
      throw optionCheck.invalid(
        `dpop.signingAlgorithms: "${String(alg)}" is not an asymmetric JWS algorithm`,
      );
    }
  }
  if (option?.requireNonce !== undefined && typeof option.requireNonce !== 'boolean') {
    throw optionCheck.invalid('dpop.requireNonce must be a boolean');
  }
  const secret = option?.nonceSecret === undefined ? undefined : secretBytes(option.nonceSecret);
  const requireNonce = option?.requireNonce ?? secret !== undefined;
  if (requireNonce && secret === undefined) {
    throw optionCheck.invalid('dpop.requireNonce needs dpop.nonceSecret, shared by every instance');
  }
  const sources = new Map<string, NonceSource>();
  return {
    algorithms: [...algorithms],
    onceStore,
    requireNonce,
    ...(secret === undefined
      ? {}
      : {
          nonces: (label: string) => {
            let source = sources.get(label);
            if (source === undefined) {
              source = createNonceSource(secret, label);
              // Labels are issuers and resources of this server: few, but a tenant lookup is open-ended.
              if (sources.size >= 10_000) sources.clear();
              sources.set(label, source);
            }
            return source;
          },
        }),
  };
}
