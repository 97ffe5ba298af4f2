import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { TokenVaultError } from '../errors.js';
import type { VaultBinding } from './vault.js';

const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** Checks a key id can sit in the dotted prefix of a sealed value. */
export function isValidKeyId(keyId: string): boolean {
  return KEY_ID.test(keyId);
}

// The AAD carries the value's header too, so a key id or wrapped data key swapped in the prefix fails
// authentication instead of being tried. The binding enters as a positional array of its *values*: field
// names are not part of the bytes, so renaming `photonId` to `toolModuleId` left every value sealed before
// the rename decryptable (test/vault/local-vault.test.ts keeps a value sealed by the old code as a vector).
// Never reorder these entries or add names to them.
function additionalData(header: string, binding: VaultBinding): Buffer {
  return Buffer.from(
    JSON.stringify([
      'keyhold/token-vault',
      header,
      binding.tenantId,
      binding.userId,
      binding.toolModuleId,
      binding.provider,
    ]),
    'utf8',
  );
}

/**
 * AES-256-GCM with a random 96-bit IV and a 128-bit tag; returns `header.base64(iv + authTag + ciphertext)`.
 */
export function seal(key: Uint8Array, header: string, plaintext: string, binding: VaultBinding): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(additionalData(header, binding));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return `${header}.${Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64')}`;
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
export function open(key: Uint8Array, parsed: ParsedSealedValue, binding: VaultBinding): string {
  // No canonical-encoding check: GCM authenticates the decoded bytes, so a re-spelt body either decodes to
  // the same authentic bytes or fails authentication, and re-encoding 2 KB on every read is not free.
  const bytes = Buffer.from(parsed.body, 'base64');
  if (bytes.length < IV_BYTES + TAG_BYTES) {
    throw new TokenVaultError('ERR_MALFORMED_CIPHERTEXT', 'sealed value body is too short');
  }
  const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, IV_BYTES), {
    authTagLength: TAG_BYTES,
  });
  decipher.setAAD(additionalData(parsed.header, binding));
  decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  try {
    return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString(
      'utf8',
    );
  } catch (cause) {
    throw new TokenVaultError(
      'ERR_DECRYPT_FAILED',
      'sealed value failed authentication (wrong key, wrong row or tampered)',
      { cause },
    );
  }
}
