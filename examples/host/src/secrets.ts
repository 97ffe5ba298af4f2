import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Secrets the host needs; generated on first start and kept in the data directory (mode 0600). */
export interface HostSecrets {
  /** Signs the development session cookie. */
  readonly sessionSecret: string;
  /** Master key of the local vault (token-vault), base64. */
  readonly vaultMasterKey: string;
  /** Client secret of the host's own confidential client at the provider tenant. */
  readonly providerClientSecret: string;
  /** HMAC key of MCP `requestState` values and 2025-era capability ids (@keyhold/mcp); shared by instances. */
  readonly mcpStateSecret: string;
}

const ENV_OVERRIDES = {
  sessionSecret: 'KEYHOLD_SESSION_SECRET',
  vaultMasterKey: 'KEYHOLD_VAULT_MASTER_KEY',
  mcpStateSecret: 'KEYHOLD_MCP_STATE_SECRET',
} as const;

/**
 * Loads the host's secrets. Environment variables win where set and are never written to disk, so a
 * deployment that supplies them needs no file; anything not supplied is generated once and kept in
 * `<dataDir>/secrets.json` (mode 0600), which is written only when a new value was generated.
 */
export function loadSecrets(dataDir: string, env: Readonly<Record<string, string | undefined>>): HostSecrets {
  const path = join(dataDir, 'secrets.json');
  const stored: Partial<Record<keyof HostSecrets, string>> = existsSync(path)
    ? JSON.parse(readFileSync(path, 'utf8'))
    : {};
  // A `stateSecret` kept by older versions (token-vault no longer signs third-party state) is dropped.
  const { stateSecret: _unused, ...kept } = stored as typeof stored & { stateSecret?: string };
  const generated: Partial<Record<keyof HostSecrets, string>> = { ...kept };
  const pick = (name: keyof HostSecrets, make: () => string): string => {
    const override =
      name in ENV_OVERRIDES ? env[ENV_OVERRIDES[name as keyof typeof ENV_OVERRIDES]] : undefined;
    if (override) return override;
    generated[name] ??= make();
    return generated[name];
  };
  const fresh = (): string => randomBytes(32).toString('base64url');
  const secrets: HostSecrets = {
    sessionSecret: pick('sessionSecret', fresh),
    vaultMasterKey: pick('vaultMasterKey', () => randomBytes(32).toString('base64')),
    providerClientSecret: pick('providerClientSecret', fresh),
    mcpStateSecret: pick('mcpStateSecret', fresh),
  };
  if (Object.keys(generated).length !== Object.keys(stored).length || 'stateSecret' in stored) {
    writeFileSync(path, `${JSON.stringify(generated, null, 2)}\n`, { mode: 0o600 });
  }
  return secrets;
}
