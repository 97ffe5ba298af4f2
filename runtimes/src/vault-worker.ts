import type { KeyManagementService } from '@keyhold/token-vault';
import { createKmsVault, createLocalVault } from '@keyhold/token-vault';

// Values the token vault's node:crypto implementation sealed (packages/token-vault/test/vault/
// stored-format.test.ts keeps them too).
const MASTER_KEY = 'a-master-key-of-at-least-32-bytes-long';
const SEALED_LOCAL =
  'v1.k1.feGpGeq1r0ebzF8KvxPrJvX5zGolv953Vsuf+d1psE/QXxcVtRJD4D9kd+Z+tFujwhQ1AAa7ZvJHBtVtK1v6UAt+ZNwJzaBpCeV/csu73aHxXeFMXVVjkAOwak5syg6bM1m0';
const SEALED_KMS =
  'v1k.kms-1.Hx4dHBsaGRgXFhUUExIREA8ODQwLCgkIBwYFBAMCAQA.ypOOycQooYuEvd1c+VNcva0j19U2ERumageqFvjBIgu3SQJSoEAv3bezHTtkXbZDLx9gml4Yods3JY032JfN8a9Mf/rK96ygmUK84Bcmnk/vH7iPVHz0lnIGdtayAsUdVZw+';
const BINDING = { tenantId: 'tenant-a', userId: 'user-1', toolModuleId: 'module-1', provider: 'github' };
const DATA_KEY = new Uint8Array(Array.from({ length: 32 }, (_, i) => i));
const fixedKms: KeyManagementService = {
  generateDataKey: async () => ({
    keyId: 'kms-1',
    plaintextKey: DATA_KEY,
    encryptedKey: DATA_KEY.slice().reverse(),
  }),
  decryptDataKey: async () => DATA_KEY,
};

/**
 * A workerd module worker that loads only the token vault, run without `nodejs_compat` (issue 28): it opens
 * values node:crypto sealed and seals a new one for the test to open on Node. A module worker is a default
 * export by definition.
 */
export default {
  async fetch(): Promise<Response> {
    const local = createLocalVault({ masterKey: MASTER_KEY, masterKeyId: 'k1', scryptCost: 1024 });
    const sealed = await local.encrypt('sealed without nodejs_compat', BINDING);
    return Response.json({
      nodeBuiltins: typeof (globalThis as { process?: unknown }).process,
      local: await local.decrypt(SEALED_LOCAL, BINDING),
      kms: await createKmsVault({ kms: fixedKms }).decrypt(SEALED_KMS, BINDING),
      sealed,
      roundTrip: await local.decrypt(sealed, BINDING),
    });
  },
};
