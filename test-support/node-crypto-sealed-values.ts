// Values the token vault's node:crypto implementation sealed just before the vault moved to WebCrypto (issue
// 28). They are the stored format: the vault's own tests and the workerd worker without nodejs_compat both
// open them, so they are written once here. Never regenerate them: if one stops opening, tokens already in
// databases are lost.

/** The master key the local-vault values were sealed under (key id `k1`). */
export const MASTER_KEY = 'a-master-key-of-at-least-32-bytes-long';

/** The token sealed in {@link SEALED_LOCAL_1024} and {@link SEALED_KMS}. */
export const PLAINTEXT = 'gho_sealed-by-node-crypto/é✓😀 and more than one 16-byte AES block';

/** The binding (additional authenticated data) every value was sealed with. */
export const BINDING: {
  readonly tenantId: string;
  readonly userId: string;
  readonly toolModuleId: string;
  readonly provider: string;
} = {
  tenantId: 'tenant-a',
  userId: 'user-1',
  toolModuleId: 'module-1',
  provider: 'github',
};

/** createLocalVault({ masterKey: MASTER_KEY, masterKeyId: 'k1', scryptCost: 1024 }).encrypt(PLAINTEXT, BINDING) */
export const SEALED_LOCAL_1024 =
  'v1.k1.feGpGeq1r0ebzF8KvxPrJvX5zGolv953Vsuf+d1psE/QXxcVtRJD4D9kd+Z+tFujwhQ1AAa7ZvJHBtVtK1v6UAt+ZNwJzaBpCeV/csu73aHxXeFMXVVjkAOwak5syg6bM1m0';

/** A KMS vault value under the fixed data key of {@link fixedKms}. */
export const SEALED_KMS =
  'v1k.kms-1.Hx4dHBsaGRgXFhUUExIREA8ODQwLCgkIBwYFBAMCAQA.ypOOycQooYuEvd1c+VNcva0j19U2ERumageqFvjBIgu3SQJSoEAv3bezHTtkXbZDLx9gml4Yods3JY032JfN8a9Mf/rK96ygmUK84Bcmnk/vH7iPVHz0lnIGdtayAsUdVZw+';

/** The one data key of {@link fixedKms}: the bytes 0…31. */
export const DATA_KEY: Uint8Array = new Uint8Array(Array.from({ length: 32 }, (_, i) => i));

/**
 * A KMS whose one data key is {@link DATA_KEY}, "wrapped" as the same bytes reversed (structurally a token-vault
 * `KeyManagementService`; this folder depends on no package).
 */
export const fixedKms: {
  generateDataKey(): Promise<{ keyId: string; plaintextKey: Uint8Array; encryptedKey: Uint8Array }>;
  decryptDataKey(): Promise<Uint8Array>;
} = {
  generateDataKey: async () => ({
    keyId: 'kms-1',
    plaintextKey: DATA_KEY,
    encryptedKey: DATA_KEY.slice().reverse(),
  }),
  decryptDataKey: async () => DATA_KEY,
};
