import { KeyholdError } from '@keyhold/core';

/**
 * The codes {@link TokenVaultError} carries. Codes are API: they are added, never renamed.
 *
 * - `ERR_INVALID_OPTIONS`: options refused when a broker, vault or provider was created.
 * - `ERR_INVALID_ASK`: a method yielded or passed something that is not a valid ask.
 * - `ERR_UNKNOWN_PROVIDER`: an ask named a provider that is not registered.
 * - `ERR_ELICITATION_REQUIRED`: no usable grant; see {@link ElicitationRequiredError}.
 * - `ERR_MALFORMED_CIPHERTEXT`, `ERR_UNKNOWN_KEY`, `ERR_DECRYPT_FAILED`: a stored value cannot be decrypted
 *   (corruption, a missing key, or a value moved to another row).
 * - `ERR_PROVIDER_UNAVAILABLE`: the provider's token endpoint could not be reached or answered garbage
 *   while no usable token was left.
 * - `ERR_REFRESH_TIMEOUT`: another process held the refresh lock for longer than the refresh timeout.
 */
export type TokenVaultErrorCode =
  | 'ERR_INVALID_OPTIONS'
  | 'ERR_INVALID_ASK'
  | 'ERR_UNKNOWN_PROVIDER'
  | 'ERR_ELICITATION_REQUIRED'
  | 'ERR_MALFORMED_CIPHERTEXT'
  | 'ERR_UNKNOWN_KEY'
  | 'ERR_DECRYPT_FAILED'
  | 'ERR_PROVIDER_UNAVAILABLE'
  | 'ERR_REFRESH_TIMEOUT';

/**
 * The one error base of `@keyhold/token-vault`; `switch (error.code)` narrows.
 *
 * @example
 * ```ts
 * try { await vault.decrypt(value, binding); }
 * catch (e) { if (e instanceof TokenVaultError && e.code === 'ERR_DECRYPT_FAILED') markCorrupt(); }
 * ```
 */
export class TokenVaultError extends KeyholdError<TokenVaultErrorCode> {}
