import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Secrets the host needs; generated on first start and kept in the data directory (mode 0600). */
export interface HostSecrets {
  /** Signs the development session cookie. */
  readonly sessionSecret: string;
  /** Signs third-party OAuth state (token-vault). */
  readonly stateSecret: string;
  /** Master key of the local vault (token-vault), base64. */
  readonly vaultMasterKey: string;
  /** Client secret of the host's own confidential client at the provider tenant. */
  readonly providerClientSecret: string;
}

/**
 * Loads the host's secrets from `<dataDir>/secrets.json`, creating the file the first time. Environment
 * variables win where set, so a deployment never needs the file.
 */
export function loadSecrets(dataDir: string, env: Readonly<Record<string, string | undefined>>): HostSecrets {
  const path = join(dataDir, 'secrets.json');
  let stored: Partial<HostSecrets> = {};
  if (existsSync(path)) stored = JSON.parse(readFileSync(path, 'utf8')) as Partial<HostSecrets>;
  const fresh = (): string => randomBytes(32).toString('base64url');
  const secrets: HostSecrets = {
    sessionSecret: env['KEYHOLD_SESSION_SECRET'] ?? stored.sessionSecret ?? fresh(),
    stateSecret: env['KEYHOLD_STATE_SECRET'] ?? stored.stateSecret ?? fresh(),
    vaultMasterKey:
      env['KEYHOLD_VAULT_MASTER_KEY'] ?? stored.vaultMasterKey ?? randomBytes(32).toString('base64'),
    providerClientSecret: stored.providerClientSecret ?? fresh(),
  };
  writeFileSync(path, `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600 });
  return secrets;
}
