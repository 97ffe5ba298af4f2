import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateSigningKey, type SigningKeyConfig } from '@keyhold/oauth-core';
import { type HostState, replaceFile, writeFileOnce } from './host-state.js';

type Keys = Record<string, SigningKeyConfig[]>;

/**
 * The tenants' signing keys, from the first source that has them:
 *
 * 1. `KEYHOLD_SIGNING_JWKS` (a JWKS with private keys, `{"keys": [...]}`) or `KEYHOLD_SIGNING_JWKS_FILE`
 *    (its path): every tenant signs with the first key and accepts all of them. Never written anywhere.
 * 2. With `state` (PostgreSQL, `DATABASE_URL`): the database. Each tenant's keys are stored once; instances
 *    starting at once all use the first stored. Keys left in `signing-keys.json` by a single-machine start
 *    are stored rather than new ones, so tokens already issued stay valid.
 * 3. Else `<dataDir>/signing-keys.json` (0600), created only if absent, so instances starting at once on one
 *    data directory use the first one's keys.
 *
 * Keys are checked by `createStaticTenants` afterwards; a broken one stops the start with a message naming
 * the tenant and the key.
 */
export async function loadSigningKeys(
  dataDir: string,
  tenants: readonly string[],
  options: { env?: Readonly<Record<string, string | undefined>>; state?: HostState } = {},
): Promise<Keys> {
  const { env = {}, state } = options;
  const fromEnvironment = environmentKeys(env);
  if (fromEnvironment) return Object.fromEntries(tenants.map((tenant) => [tenant, fromEnvironment]));

  const path = join(dataDir, 'signing-keys.json');
  const fromFile = (): Keys => (existsSync(path) ? JSON.parse(readFileSync(path, 'utf8')) : {});
  const generate = async (tenant: string): Promise<SigningKeyConfig[]> => [
    { ...(await generateSigningKey('ES256', `${tenant}-1`)), active: true },
  ];

  if (state) {
    const seed = fromFile();
    const keys: Keys = {};
    for (const tenant of tenants) {
      const name = `signing-keys:${tenant}`;
      const stored =
        (await state.get(name)) ??
        (await state.putIfAbsent(
          name,
          JSON.stringify(seed[tenant]?.length ? seed[tenant] : await generate(tenant)),
        ));
      keys[tenant] = JSON.parse(stored);
    }
    return keys;
  }

  let stored = fromFile();
  const missing = (from: Keys) => tenants.filter((tenant) => !from[tenant]?.length);
  const render = async (from: Keys) => {
    const next: Keys = { ...from };
    for (const tenant of missing(from)) next[tenant] = await generate(tenant);
    return `${JSON.stringify(next, null, 2)}\n`;
  };
  // No file yet: created only if still absent, so every instance starting now uses the first one's keys.
  if (!existsSync(path)) stored = JSON.parse(writeFileOnce(path, await render(stored)));
  // A tenant added since the file was written gets its key, the others' kept as they are.
  if (missing(stored).length > 0) stored = JSON.parse(replaceFile(path, await render(stored)));
  return stored;
}

/** Reads `KEYHOLD_SIGNING_JWKS` or `KEYHOLD_SIGNING_JWKS_FILE`; undefined when neither is set. */
function environmentKeys(env: Readonly<Record<string, string | undefined>>): SigningKeyConfig[] | undefined {
  const inline = env['KEYHOLD_SIGNING_JWKS'];
  const file = env['KEYHOLD_SIGNING_JWKS_FILE'];
  if (inline && file) throw new Error('set KEYHOLD_SIGNING_JWKS or KEYHOLD_SIGNING_JWKS_FILE, not both');
  const source = inline ? 'KEYHOLD_SIGNING_JWKS' : `KEYHOLD_SIGNING_JWKS_FILE (${file})`;
  let text: string;
  if (inline) text = inline;
  else if (file) {
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      throw new Error(`${source} cannot be read: ${(error as Error).message}`);
    }
  } else return undefined;
  let jwks: unknown;
  try {
    jwks = JSON.parse(text);
  } catch {
    throw new Error(`${source} is not JSON: give a JWKS, {"keys": [{"kty": "EC", "d": …, "kid": …}]}`);
  }
  const keys = (jwks as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(keys) || keys.length === 0) {
    throw new Error(`${source} holds no keys: give a JWKS, {"keys": [{"kty": "EC", "d": …, "kid": …}]}`);
  }
  const kids = new Set<string>();
  return keys.map((jwk: unknown, index) => {
    const key = (typeof jwk === 'object' && jwk !== null ? jwk : {}) as Record<string, unknown>;
    const kid = key['kid'];
    if (typeof kid !== 'string' || kid === '') throw new Error(`${source}: key ${index + 1} has no "kid"`);
    if (kids.has(kid)) throw new Error(`${source}: the kid "${kid}" is listed twice`);
    kids.add(kid);
    const alg = key['alg'] ?? (key['kty'] === 'EC' ? 'ES256' : key['kty'] === 'RSA' ? 'RS256' : undefined);
    if (alg !== 'ES256' && alg !== 'RS256') {
      throw new Error(
        `${source}: key ${kid}: only ES256 (EC P-256) and RS256 (RSA) private keys are accepted`,
      );
    }
    // The first key signs; the others are accepted for verification (rotation: put the new key first).
    return { kid, alg, privateKey: key, active: index === 0 } as SigningKeyConfig;
  });
}
