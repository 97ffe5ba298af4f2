import type { Logger } from '@keyhold/core';
import { silentLogger } from '@keyhold/core';
import type { Scrypt } from '@keyhold/internal';
import { optionValidators, scrypt } from '@keyhold/internal';
import { LRUCache } from 'lru-cache';
import { TokenVaultError } from '../errors.js';
import { isValidKeyId, open, parseSealedValue, seal } from './sealed-value.js';
import type { Vault } from './vault.js';

const VERSION = 'v1';

/** Reported once per derived tenant key (a cache miss), so hosts can see that scrypt is not on the hot path. */
export interface KeyDerivationEvent {
  readonly tenantId: string;
  readonly keyId: string;
  readonly durationMs: number;
}

/** Options of {@link createLocalVault}. */
export interface LocalVaultOptions {
  /** The master key: at least 32 bytes (a string counts its UTF-8 bytes). Keep it out of the database. */
  masterKey: string | Uint8Array;
  /** The id written in front of every value sealed with `masterKey` (default `'k1'`). */
  masterKeyId?: string;
  /** Earlier master keys by id, still accepted for decryption and `rewrap` after a rotation. */
  previousMasterKeys?: Readonly<Record<string, string | Uint8Array>>;
  /** scrypt cost parameter N, a power of two (default 2^15; r = 8, p = 1). */
  scryptCost?: number;
  /** How many derived tenant keys stay cached (default 10 000). */
  keyCacheSize?: number;
  /** Called after each scrypt derivation. */
  onKeyDerived?: (event: KeyDerivationEvent) => void;
  logger?: Logger;
}

const check = optionValidators(TokenVaultError);
const encoder = new TextEncoder();

function keyBytes(value: string | Uint8Array | undefined, name: string): Uint8Array {
  const bytes = typeof value === 'string' ? encoder.encode(value) : value;
  if (!(bytes instanceof Uint8Array) || bytes.byteLength < 32) {
    throw check.invalid(`${name} must be at least 32 bytes`);
  }
  return bytes;
}

// The stored format: every local key ever sealed with was scrypt(masterKey, UTF-8 salt, N = cost, r = 8,
// p = 1, 32 bytes). maxmem is twice what that takes, as it was when node:crypto was called directly.
function deriveWith(
  scryptImplementation: Scrypt,
  masterKey: Uint8Array,
  salt: string,
  cost: number,
): Promise<Uint8Array> {
  return scryptImplementation(masterKey, encoder.encode(salt), {
    cost,
    blockSize: 8,
    parallelization: 1,
    keyLengthBytes: 32,
    maxMemoryBytes: 256 * cost * 8,
  });
}

/**
 * The local vault: each tenant's AES-256-GCM key is derived from a master key with scrypt, once per tenant
 * and key id per process, then cached (scrypt is slow by design; the cache keeps it off the request path).
 * For development and single-instance deployments; use {@link createKmsVault} when several instances share
 * a database.
 *
 * @example
 * ```ts
 * const vault = createLocalVault({ masterKey: process.env.KEYHOLD_MASTER_KEY! });
 * ```
 */
export function createLocalVault(options: LocalVaultOptions): Vault {
  return createLocalVaultDerivingWith(options, scrypt);
}

/**
 * {@link createLocalVault} with the scrypt implementation chosen by the caller, not by the runtime: the seam
 * through which tests prove that the portable scrypt (workers without node:crypto) derives the tenant keys
 * node:crypto derives. Not exported from the package.
 *
 * @example
 * ```ts
 * const onWorkers = createLocalVaultDerivingWith({ masterKey }, scryptPortable);
 * ```
 */
export function createLocalVaultDerivingWith(options: LocalVaultOptions, derivation: Scrypt): Vault {
  const currentKeyId = options.masterKeyId ?? 'k1';
  const masterKeys = new Map<string, Uint8Array>();
  masterKeys.set(currentKeyId, keyBytes(options.masterKey, 'masterKey'));
  for (const [keyId, key] of Object.entries(options.previousMasterKeys ?? {})) {
    if (keyId === currentKeyId) {
      throw check.invalid(`previousMasterKeys repeats the current key id ${keyId}`);
    }
    masterKeys.set(keyId, keyBytes(key, `previousMasterKeys.${keyId}`));
  }
  for (const keyId of masterKeys.keys()) {
    if (!isValidKeyId(keyId)) throw check.invalid(`invalid key id ${keyId}`);
  }
  const cost = options.scryptCost ?? 2 ** 15;
  if (!Number.isInteger(cost) || cost < 2 ** 10 || (cost & (cost - 1)) !== 0) {
    throw check.invalid('scryptCost must be a power of two, at least 1024');
  }
  const logger = options.logger ?? silentLogger;
  // The cache holds promises, so concurrent first uses of a tenant share one derivation.
  const keys = new LRUCache<string, Promise<Uint8Array>>({
    max: check.positiveInteger('keyCacheSize', options.keyCacheSize, 10_000),
  });

  function tenantKey(tenantId: string, keyId: string): Promise<Uint8Array> {
    const cacheKey = `${keyId}\u0000${tenantId}`;
    const cached = keys.get(cacheKey);
    if (cached !== undefined) return cached;
    const masterKey = masterKeys.get(keyId);
    if (masterKey === undefined) {
      return Promise.reject(new TokenVaultError('ERR_UNKNOWN_KEY', `no master key with id ${keyId}`));
    }
    const started = performance.now();
    const derived = deriveWith(
      derivation,
      masterKey,
      `keyhold/token-vault/local/v1\u0000${keyId}\u0000${tenantId}`,
      cost,
    ).then((key) => {
      const event = { tenantId, keyId, durationMs: performance.now() - started };
      logger.debug(event, 'token-vault: derived tenant key');
      options.onKeyDerived?.(event);
      return key;
    });
    derived.catch(() => keys.delete(cacheKey));
    keys.set(cacheKey, derived);
    return derived;
  }

  const vault: Vault = {
    encrypt: async (plaintext, binding) =>
      seal(await tenantKey(binding.tenantId, currentKeyId), `${VERSION}.${currentKeyId}`, plaintext, binding),
    decrypt: async (value, binding) => {
      const parsed = parseSealedValue(value);
      if (parsed.version !== VERSION || parsed.extra.length !== 0) {
        throw new TokenVaultError('ERR_MALFORMED_CIPHERTEXT', `not a local vault value (${parsed.version})`);
      }
      return open(await tenantKey(binding.tenantId, parsed.keyId), parsed, binding);
    },
    rewrap: async (value, binding) => vault.encrypt(await vault.decrypt(value, binding), binding),
    keyIdOf: (value) => parseSealedValue(value).keyId,
  };
  return vault;
}
