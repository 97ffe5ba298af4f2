import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type HostState, replaceFile, writeFileOnce } from './host-state.js';

/** Secrets the host needs; generated once and shared by every instance. */
export interface HostSecrets {
  /** Signs the development session cookie. */
  readonly sessionSecret: string;
  /** Master key of the local vault (token-vault), base64. */
  readonly vaultMasterKey: string;
  /** Client secret of the host's own confidential client at the provider tenant. */
  readonly providerClientSecret: string;
  /** HMAC key of MCP `requestState` values and 2025-era capability ids (@keyhold/mcp); shared by instances. */
  readonly mcpStateSecret: string;
  /** Derives DPoP nonces (RFC 9449 §8, oauth-core `dpop.nonceSecret`); shared, so every instance accepts every nonce. */
  readonly dpopNonceSecret: string;
}

const ENV_OVERRIDES = {
  sessionSecret: 'KEYHOLD_SESSION_SECRET',
  vaultMasterKey: 'KEYHOLD_VAULT_MASTER_KEY',
  providerClientSecret: 'KEYHOLD_PROVIDER_CLIENT_SECRET',
  mcpStateSecret: 'KEYHOLD_MCP_STATE_SECRET',
  dpopNonceSecret: 'KEYHOLD_DPOP_NONCE_SECRET',
} as const satisfies Record<keyof HostSecrets, string>;

const NAMES = Object.keys(ENV_OVERRIDES) as (keyof HostSecrets)[];

const fresh = (name: keyof HostSecrets): string =>
  name === 'vaultMasterKey' ? randomBytes(32).toString('base64') : randomBytes(32).toString('base64url');

/**
 * Loads the host's secrets. Environment variables win where set and are never written anywhere, so a
 * deployment that supplies them needs no file. Anything not supplied is generated once:
 *
 * - with `state` (PostgreSQL, `DATABASE_URL`), kept in the database: every instance stores its candidate
 *   only if none is there and uses the one stored, so instances on several machines agree. A
 *   `secrets.json` left in the data directory by a single-machine start seeds the database, so tokens in
 *   the vault stay readable after the move to PostgreSQL;
 * - else in `<dataDir>/secrets.json` (mode 0600), created only if absent: of instances starting at once on
 *   one data directory, the first to create the file wins and the others read it.
 */
export async function loadSecrets(
  dataDir: string,
  env: Readonly<Record<string, string | undefined>>,
  state?: HostState,
): Promise<HostSecrets> {
  const path = join(dataDir, 'secrets.json');
  const fromFile = (): Partial<Record<string, string>> =>
    existsSync(path) ? JSON.parse(readFileSync(path, 'utf8')) : {};
  const override = (name: keyof HostSecrets): string | undefined => env[ENV_OVERRIDES[name]] || undefined;

  const values: Partial<Record<keyof HostSecrets, string>> = {};
  if (state) {
    const seed = fromFile();
    for (const name of NAMES) {
      values[name] =
        override(name) ??
        (await state.get(`secret:${name}`)) ??
        (await state.putIfAbsent(`secret:${name}`, seed[name] ?? fresh(name)));
    }
    return values as HostSecrets;
  }

  const stored = fromFile();
  // A `stateSecret` kept by older versions (token-vault no longer signs third-party state) is dropped.
  const { stateSecret: _unused, ...kept } = stored;
  const missing = (from: Partial<Record<string, string>>) =>
    NAMES.filter((name) => override(name) === undefined && from[name] === undefined);
  const render = (from: Partial<Record<string, string>>) =>
    `${JSON.stringify({ ...from, ...Object.fromEntries(missing(from).map((name) => [name, fresh(name)])) }, null, 2)}\n`;
  let file = kept;
  // No file yet: create it only if still absent, so of instances starting at once the first one's
  // secrets are everyone's.
  if (!existsSync(path)) file = JSON.parse(writeFileOnce(path, render(kept)));
  // A file from an older version (or an instance given other environment overrides) lacking a secret is
  // completed in place.
  if (missing(file).length > 0 || 'stateSecret' in stored) file = JSON.parse(replaceFile(path, render(file)));
  for (const name of NAMES) {
    const value = override(name) ?? file[name];
    if (value === undefined) throw new Error(`${path} holds no ${name}: set ${ENV_OVERRIDES[name]}`);
    values[name] = value;
  }
  return values as HostSecrets;
}
