import { createKmsVault, createLocalVault } from '@keyhold/token-vault';
// Values the token vault's node:crypto implementation sealed, shared with its stored-format test.
import {
  BINDING,
  fixedKms,
  MASTER_KEY,
  SEALED_KMS,
  SEALED_LOCAL_1024,
} from '../../test-support/node-crypto-sealed-values.js';

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
      local: await local.decrypt(SEALED_LOCAL_1024, BINDING),
      kms: await createKmsVault({ kms: fixedKms }).decrypt(SEALED_KMS, BINDING),
      sealed,
      roundTrip: await local.decrypt(sealed, BINDING),
    });
  },
};
