import type { AesGcm } from '@keyhold/internal';
import { aesGcm, base64Decode, base64Encode } from '@keyhold/internal';
import { TokenVaultError } from '../errors.js';
import type { VaultBinding } from './vault.js';

const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;
const KEY_ID = /^[A-Za-z0-9_-]{1,64}$/;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Checks a key id can sit in the dotted prefix of a sealed value. */
export function isValidKeyId(keyId: string): boolean {
  return KEY_ID.test(keyId);
}

// The AAD carries the value's header too, so a key id or wrapped data key swapped in the prefix fails
// authentication instead of being tried. The binding enters as a positional array of its *values*: field
// names are not part of the bytes, so renaming `photonId` to `toolModuleId` left every value sealed before
// the rename decryptable (test/vault/local-vault.test.ts keeps a value sealed by the old code as a vector).
// Never reorder these entries or add names to them.
function additionalData(header: string, binding: VaultBinding): Uint8Array<ArrayBuffer> {
  return encoder.encode(
    JSON.stringify([
      'keyhold/token-vault',
      header,
      binding.tenantId,
      binding.userId,
      binding.toolModuleId,
      binding.provider,
    ]),
  );
}

// A misuse (the vaults check their keys), so thrown as such, not reported as a failed authentication.
function checkKey(key: Uint8Array): void {
  // WebCrypto would also take a 128- or 192-bit key, and the format says AES-256.
  if (key.byteLength !== KEY_BYTES) throw new TypeError('the vault needs a 32-byte AES-256 key');
}

/**
 * AES-256-GCM with a random 96-bit IV and a 128-bit tag; returns `header.base64(iv + authTag + ciphertext)`.
 * `engine` is the runtime's (node:crypto's or WebCrypto); tests pass each.
 */
export async function seal(
  key: Uint8Array,
  header: string,
  plaintext: string,
  binding: VaultBinding,
  engine: AesGcm = aesGcm,
): Promise<string> {
  checkKey(key);
  const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  const body = await engine.seal(key, iv, additionalData(header, binding), encoder.encode(plaintext));
  return `${header}.${base64Encode(body)}`;
}

/** A sealed value split into its parts; nothing is decrypted yet. */
export interface ParsedSealedValue {
  readonly version: string;
  readonly keyId: string;
  /** Middle fields between the key id and the body (the wrapped data key in KMS mode). */
  readonly extra: readonly string[];
  readonly header: string;
  readonly body: string;
}

/** Splits `version.keyId[.extra…].body`; throws `ERR_MALFORMED_CIPHERTEXT` on anything else. */
export function parseSealedValue(value: string): ParsedSealedValue {
  const parts = value.split('.');
  const version = parts[0];
  const keyId = parts[1];
  const body = parts.at(-1);
  if (parts.length < 3 || version === undefined || keyId === undefined || body === undefined) {
    throw new TokenVaultError('ERR_MALFORMED_CIPHERTEXT', 'not a sealed vault value');
  }
  return {
    version,
    keyId,
    extra: parts.slice(2, -1),
    header: parts.slice(0, -1).join('.'),
    body,
  };
}

/** Opens a value produced by {@link seal}; throws `ERR_DECRYPT_FAILED` when authentication fails. */
export async function open(
  key: Uint8Array,
  parsed: ParsedSealedValue,
  binding: VaultBinding,
  engine: AesGcm = aesGcm,
): Promise<string> {
  checkKey(key);
  // The body must be the padded, canonical base64 that `seal` writes (and node:crypto's vault wrote before
  // it): anything else was not written by a vault, so it is malformed rather than worth a decryption.
  let bytes: Uint8Array<ArrayBuffer>;
  try {
    bytes = base64Decode(parsed.body);
  } catch {
    throw new TokenVaultError('ERR_MALFORMED_CIPHERTEXT', 'sealed value body is not base64');
  }
  if (bytes.length < IV_BYTES + TAG_BYTES) {
    throw new TokenVaultError('ERR_MALFORMED_CIPHERTEXT', 'sealed value body is too short');
  }
  let plaintext: Uint8Array;
  try {
    plaintext = await engine.open(key, bytes, additionalData(parsed.header, binding));
  } catch (cause) {
    throw new TokenVaultError(
      'ERR_DECRYPT_FAILED',
      'sealed value failed authentication (wrong key, wrong row or tampered)',
      { cause },
    );
  }
  return decoder.decode(plaintext);
}
