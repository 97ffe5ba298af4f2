import { base64urlDecode, base64urlEncode } from '@keyhold/internal';

// The successor of a rotated refresh token is kept on the old token's row so that the same client
// presenting the old token again within the reuse window gets the same successor. It is sealed with
// AES-256-GCM under a key derived (HKDF-SHA256) from the OLD token's value: the store holds only that
// token's SHA-256, so a copy of the database reveals no live refresh token, while whoever presents the old
// token proves they can open it. The AAD binds the blob to its tenant and row.
//
// WebCrypto, not node:crypto, so the main entry loads on every runtime. The layout predates it and stays:
// `r1.<base64url(iv ‖ tag ‖ ciphertext)>`, while WebCrypto works with `ciphertext ‖ tag`, hence the reordering.

const VERSION = 'r1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const utf8 = new TextEncoder();
const INFO = utf8.encode('keyhold/oauth-core refresh successor v1');
const NO_SALT = new Uint8Array(0);

/** Where a sealed successor sits: the tenant and the SHA-256 of the token it was rotated from. */
export interface SuccessorBinding {
  readonly tenant: string;
  readonly tokenHash: string;
}

async function keyFrom(presentedToken: string): Promise<CryptoKey> {
  const material = await crypto.subtle.importKey('raw', utf8.encode(presentedToken), 'HKDF', false, [
    'deriveKey',
  ]);
  return crypto.subtle.deriveKey(
    { name: 'HKDF', hash: 'SHA-256', salt: NO_SALT, info: INFO },
    material,
    { name: 'AES-GCM', length: 256 },
    false,
    ['encrypt', 'decrypt'],
  );
}

function gcm(iv: Uint8Array<ArrayBuffer>, binding: SuccessorBinding): AesGcmParams {
  return {
    name: 'AES-GCM',
    iv,
    additionalData: utf8.encode(JSON.stringify([VERSION, binding.tenant, binding.tokenHash])),
    tagLength: TAG_BYTES * 8,
  };
}

/** Seals `successor` under a key derived from `presentedToken`: `r1.<base64url(iv ‖ tag ‖ ciphertext)>`. */
export async function sealSuccessor(
  presentedToken: string,
  binding: SuccessorBinding,
  successor: string,
): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  const sealed = new Uint8Array(
    await crypto.subtle.encrypt(gcm(iv, binding), await keyFrom(presentedToken), utf8.encode(successor)),
  );
  const ciphertextBytes = sealed.length - TAG_BYTES;
  const out = new Uint8Array(IV_BYTES + sealed.length);
  out.set(iv, 0);
  out.set(sealed.subarray(ciphertextBytes), IV_BYTES);
  out.set(sealed.subarray(0, ciphertextBytes), IV_BYTES + TAG_BYTES);
  return `${VERSION}.${base64urlEncode(out)}`;
}

/**
 * Opens what {@link sealSuccessor} produced; `undefined` when the value is malformed or does not
 * authenticate under the presented token (never the case for the token it was sealed from).
 */
export async function openSuccessor(
  presentedToken: string,
  binding: SuccessorBinding,
  sealed: string,
): Promise<string | undefined> {
  const [version, body, ...rest] = sealed.split('.');
  if (version !== VERSION || body === undefined || rest.length > 0) return undefined;
  let bytes: Uint8Array;
  try {
    bytes = base64urlDecode(body);
  } catch {
    return undefined;
  }
  if (bytes.length <= IV_BYTES + TAG_BYTES) return undefined;
  const ciphertext = bytes.subarray(IV_BYTES + TAG_BYTES);
  const joined = new Uint8Array(ciphertext.length + TAG_BYTES);
  joined.set(ciphertext, 0);
  joined.set(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES), ciphertext.length);
  try {
    const plain = await crypto.subtle.decrypt(
      gcm(bytes.slice(0, IV_BYTES), binding),
      await keyFrom(presentedToken),
      joined,
    );
    return new TextDecoder('utf-8', { fatal: true }).decode(plain);
  } catch {
    return undefined;
  }
}
