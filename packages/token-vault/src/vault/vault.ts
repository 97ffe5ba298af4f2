/**
 * What a ciphertext is bound to through AES-GCM additional authenticated data: a value copied to another
 * tenant's, user's, tool module's or provider's row does not decrypt.
 */
export interface VaultBinding {
  readonly tenantId: string;
  readonly userId: string;
  readonly toolModuleId: string;
  readonly provider: string;
}

/**
 * Encrypts tokens at rest with AES-256-GCM under a per-tenant key. Values are strings of the form
 * `<version>.<keyId>[.<wrapped data key>].<base64(iv + authTag + ciphertext)>`.
 *
 * @example
 * ```ts
 * const sealed = await vault.encrypt(accessToken, { tenantId, userId, toolModuleId, provider });
 * const token = await vault.decrypt(sealed, { tenantId, userId, toolModuleId, provider });
 * ```
 */
export interface Vault {
  /** Encrypts under the tenant's current key. */
  encrypt(plaintext: string, binding: VaultBinding): Promise<string>;
  /**
   * Decrypts a value written by {@link Vault.encrypt} with any key the vault still knows. Throws a
   * `TokenVaultError` (`ERR_MALFORMED_CIPHERTEXT`, `ERR_UNKNOWN_KEY`, `ERR_DECRYPT_FAILED`) otherwise.
   */
  decrypt(value: string, binding: VaultBinding): Promise<string>;
  /** Decrypts and encrypts again under the tenant's current key (key rotation). */
  rewrap(value: string, binding: VaultBinding): Promise<string>;
  /** The key id a value was written with, read from its prefix. */
  keyIdOf(value: string): string;
}
