import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateSigningKey, type SigningKeyConfig } from '@keyhold/oauth-core';

/**
 * The tenants' signing keys, generated on first start and kept in `<dataDir>/signing-keys.json` (0600) so
 * tokens stay valid across restarts. A production host keeps them in its secret manager instead.
 */
export async function loadSigningKeys(
  dataDir: string,
  tenants: readonly string[],
): Promise<Record<string, SigningKeyConfig[]>> {
  const path = join(dataDir, 'signing-keys.json');
  const stored: Record<string, SigningKeyConfig[]> = existsSync(path)
    ? JSON.parse(readFileSync(path, 'utf8'))
    : {};
  let changed = false;
  for (const tenant of tenants) {
    if (stored[tenant]?.length) continue;
    stored[tenant] = [{ ...(await generateSigningKey('ES256', `${tenant}-1`)), active: true }];
    changed = true;
  }
  if (changed) writeFileSync(path, `${JSON.stringify(stored, null, 2)}\n`, { mode: 0o600 });
  return stored;
}
