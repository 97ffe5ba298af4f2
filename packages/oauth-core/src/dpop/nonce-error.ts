import { OAuthError } from '../errors.js';

/**
 * `use_dpop_nonce` (RFC 9449 §8) with the nonce to retry with: the handler boundary sends it as the
 * `DPoP-Nonce` header of the 400.
 */
export class DpopNonceError extends OAuthError {
  readonly nonce: string;

  constructor(description: string, nonce: string) {
    super('use_dpop_nonce', description);
    this.nonce = nonce;
  }
}
