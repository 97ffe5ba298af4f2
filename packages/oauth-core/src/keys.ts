import { base64urlEncode, sha256Base64url } from '@keyhold/internal';
import type { CryptoKey, JWK } from 'jose';
import { compactVerify, exportJWK, generateKeyPair, importJWK, importPKCS8 } from 'jose';
import { OAuthCoreError, optionCheck } from './errors.js';
import { createNativeSigner, type NativeSigner, type NodeBuiltins, nodeBuiltins } from './native-signer.js';
import { checkSigningKeySet, HMAC_MIN_BYTES } from './signing-key-check.js';
import type { SigningAlgorithm, SigningKeyConfig } from './signing-key-config.js';

export type {
  AsymmetricAlgorithm,
  SigningAlgorithm,
  SigningKeyConfig,
  SymmetricAlgorithm,
} from './signing-key-config.js';

/** A tenant key imported for use. */
export interface ImportedSigningKey {
  readonly kid: string;
  readonly alg: SigningAlgorithm;
  readonly signingKey: CryptoKey;
  readonly verificationKey: CryptoKey;
  /** The public JWK (with `kid`, `alg`, `use`) for asymmetric keys. */
  readonly publicJwk?: JWK;
  /**
   * The same key as `node:crypto` `KeyObject`s, when the runtime hands out `node:crypto`: tokens are then
   * signed synchronously through it (byte-compatible with jose). Absent elsewhere: jose signs. Verification
   * is jose's everywhere.
   */
  readonly nativeSigner?: NativeSigner;
}

/** A tenant's keys, imported once and cached. */
export interface TenantKeySet {
  readonly active: ImportedSigningKey;
  readonly byKid: ReadonlyMap<string, ImportedSigningKey>;
  readonly algorithms: readonly SigningAlgorithm[];
  /** The public JWKs of every asymmetric key, active or not. */
  readonly publicJwks: readonly JWK[];
}

const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'] as const;

function publicPart(jwk: JWK): JWK {
  const copy: Record<string, unknown> = { ...jwk };
  for (const member of PRIVATE_MEMBERS) delete copy[member];
  delete copy.key_ops;
  delete copy.ext;
  return copy as JWK;
}

async function importOne(
  config: SigningKeyConfig,
  node: NodeBuiltins | undefined,
): Promise<ImportedSigningKey> {
  // checkSigningKeySet has refused what this cannot import: a short secret, a wrong JWK, a malformed PEM.
  if (config.alg === 'HS256' || config.alg === 'HS384' || config.alg === 'HS512') {
    const bytes = typeof config.secret === 'string' ? new TextEncoder().encode(config.secret) : config.secret;
    const key = await crypto.subtle.importKey(
      'raw',
      new Uint8Array(bytes),
      { name: 'HMAC', hash: `SHA-${config.alg.slice(2)}` },
      false,
      ['sign', 'verify'],
    );
    const nativeSigner = node
      ? await provenSigner(
          config.alg,
          () => createNativeSigner(node, config.kid, { alg: config.alg, secret: new Uint8Array(bytes) }),
          key,
        )
      : undefined;
    return {
      kid: config.kid,
      alg: config.alg,
      signingKey: key,
      verificationKey: key,
      ...(nativeSigner ? { nativeSigner } : {}),
    };
  }
  // Unreachable after the check; narrows the config to its asymmetric variant.
  if (config.alg !== 'RS256' && config.alg !== 'ES256') throw optionCheck.invalid('unsupported alg');
  let privateJwk: JWK;
  try {
    if (typeof config.privateKey === 'string') {
      privateJwk = await exportJWK(
        await importPKCS8(config.privateKey.trim(), config.alg, { extractable: true }),
      );
    } else {
      privateJwk = config.privateKey;
    }
    const signingKey = (await importJWK({ ...privateJwk, ext: false }, config.alg)) as CryptoKey;
    const publicJwk: JWK = { ...publicPart(privateJwk), kid: config.kid, alg: config.alg, use: 'sig' };
    const verificationKey = (await importJWK(publicJwk, config.alg)) as CryptoKey;
    if (signingKey.type !== 'private') throw new Error('not a private key');
    const nativeSigner = node
      ? await provenSigner(
          config.alg,
          () => createNativeSigner(node, config.kid, { alg: config.alg, privateJwk }),
          verificationKey,
        )
      : undefined;
    return {
      kid: config.kid,
      alg: config.alg,
      signingKey,
      verificationKey,
      publicJwk,
      ...(nativeSigner ? { nativeSigner } : {}),
    };
  } catch (error) {
    if (error instanceof OAuthCoreError) throw error;
    throw new OAuthCoreError(
      'ERR_INVALID_OPTIONS',
      `signing key ${config.kid}: not a usable ${config.alg} private key`,
      { cause: error },
    );
  }
}

/**
 * The `node:crypto` signer, only when what it signs demonstrably verifies through jose with the key's
 * public half. A runtime that offers a partial `node:crypto` under Node's name keeps jose's signing
 * instead of issuing tokens nobody accepts. This chooses how to sign, never how to verify.
 */
async function provenSigner(
  alg: SigningAlgorithm,
  create: () => NativeSigner,
  verificationKey: CryptoKey,
): Promise<NativeSigner | undefined> {
  try {
    const signer = create();
    await compactVerify(signer.sign('keyhold-probe', { probe: true }), verificationKey, {
      algorithms: [alg],
    });
    return signer;
  } catch {
    return undefined;
  }
}

async function importKeySet(
  configs: readonly SigningKeyConfig[],
  nativeSigning: boolean,
): Promise<TenantKeySet> {
  const marked = configs.filter((config) => config.active === true);
  const node = nativeSigning ? nodeBuiltins() : undefined;
  const imported = await Promise.all(configs.map((config) => importOne(config, node)));
  const byKid = new Map<string, ImportedSigningKey>();
  for (const key of imported) byKid.set(key.kid, key);
  const activeKid = (marked[0] ?? configs[0])?.kid;
  const active = activeKid === undefined ? undefined : byKid.get(activeKid);
  if (!active) throw optionCheck.invalid('no active signing key');
  return {
    active,
    byKid,
    algorithms: [...new Set(imported.map((key) => key.alg))],
    publicJwks: imported.flatMap((key) => (key.publicJwk ? [key.publicJwk] : [])),
  };
}

function fingerprint(configs: readonly SigningKeyConfig[]): string {
  return sha256Base64url(
    JSON.stringify(
      configs.map((config) =>
        'secret' in config
          ? {
              ...config,
              secret:
                typeof config.secret === 'string'
                  ? config.secret
                  : // Tagged, so that bytes never share a digest with the string that spells their encoding.
                    { bytes: base64urlEncode(config.secret) },
            }
          : config,
      ),
    ),
  );
}

/**
 * A cache of imported key sets. Tenant lookups may hand out the same array every time (found by identity)
 * or build a fresh one per request (found by a digest of its contents), so importing happens once per
 * distinct key set either way.
 *
 * @example
 * ```ts
 * const cache = createKeyCache();
 * const keys = await cache.get(tenant.signingKeys);
 * ```
 */
export interface KeyCache {
  get(configs: readonly SigningKeyConfig[]): Promise<TenantKeySet>;
}

/** Options of {@link createKeyCache}. */
export interface KeyCacheOptions {
  /**
   * Sign through `node:crypto` when the runtime hands it out (default true). `false` signs through jose, as
   * on runtimes without `node:crypto` (tests and the `signing` bench compare the two). Verification is
   * jose's either way.
   */
  readonly nativeSigning?: boolean;
}

/**
 * Creates a {@link KeyCache}. Each key set is checked as `createStaticTenants` checks it (same messages)
 * before it is imported; a failed import is not cached, so a fixed configuration takes effect.
 *
 * @example
 * ```ts
 * const keys = await createKeyCache().get([{ kid: 'k1', alg: 'HS256', secret }]);
 * ```
 */
export function createKeyCache(options: KeyCacheOptions = {}): KeyCache {
  const nativeSigning = options.nativeSigning !== false;
  const byIdentity = new WeakMap<readonly SigningKeyConfig[], Promise<TenantKeySet>>();
  const byDigest = new Map<string, Promise<TenantKeySet>>();
  return {
    get(configs) {
      const known = byIdentity.get(configs);
      if (known) return known;
      // Before the digest, which needs well-formed secrets; cheap next to an import (no decoding but a PEM's).
      try {
        checkSigningKeySet(configs);
      } catch (error) {
        return Promise.reject(error);
      }
      const digest = fingerprint(configs);
      let pending = byDigest.get(digest);
      if (!pending) {
        pending = importKeySet(configs, nativeSigning);
        byDigest.set(digest, pending);
        pending.catch(() => {
          byDigest.delete(digest);
          byIdentity.delete(configs);
        });
      }
      byIdentity.set(configs, pending);
      return pending;
    },
  };
}

/**
 * Generates a new signing key: random bytes for HS*, a fresh key pair (as a private JWK) for RS256/ES256.
 * Persist the result; a key generated at every start would invalidate every token at every restart.
 *
 * @example
 * ```ts
 * const key = await generateSigningKey('ES256', '2026-01');
 * ```
 */
export async function generateSigningKey(alg: SigningAlgorithm, kid: string): Promise<SigningKeyConfig> {
  if (alg === 'HS256' || alg === 'HS384' || alg === 'HS512') {
    return { kid, alg, secret: crypto.getRandomValues(new Uint8Array(HMAC_MIN_BYTES[alg])) };
  }
  const { privateKey } = await generateKeyPair(alg, { extractable: true });
  return { kid, alg, privateKey: await exportJWK(privateKey) };
}
