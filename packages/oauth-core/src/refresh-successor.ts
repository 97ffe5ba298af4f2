import { aesGcm, base64urlDecode, base64urlEncode } from '@keyhold/internal';

// The successor of a rotated refresh token is kept on the old token's row so that the same client
// presenting the old token again within the reuse window gets the same successor. It is sealed with
// AES-256-GCM under a key derived (HKDF-SHA256) from the OLD token's value: the store holds only that
// token's SHA-256, so a copy of the database reveals no live refresh token, while whoever presents the old
// token proves they can open it. The AAD binds the blob to its tenant and row. The layout,
// `r1.<base64url(iv ‖ tag ‖ ciphertext)>`, is the one @keyhold/internal's `aesGcm` produces.

const VERSION = 'r1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const utf8 = new TextEncoder();
const INFO = utf8.encode('keyhold/oauth-core refresh successor v1');

/** Where a sealed successor sits: the tenant and the SHA-256 of the token it was rotated from. */
export interface SuccessorBinding {
  readonly tenant: string;
  readonly tokenHash: string;
}

async function keyFrom(presentedToken: string): Promise<Uint8Array> {
  const material = await crypto.subtle.importKey('raw', utf8.encode(presentedToken), 'HKDF', false, [
    'deriveBits',
  ]);
  return new Uint8Array(
    await crypto.subtle.deriveBits(
      { name: 'HKDF', hash: 'SHA-256', salt: new Uint8Array(0), info: INFO },
      material,
      256,
    ),
  );
}

function additionalData(binding: SuccessorBinding): Uint8Array {
  return utf8.encode(JSON.stringify([VERSION, binding.tenant, binding.tokenHash]));
}

/** Seals `successor` under a key derived from `presentedToken`: `r1.<base64url(iv ‖ tag ‖ ciphertext)>`. */
export async function sealSuccessor(
  presentedToken: string,
  binding: SuccessorBinding,
  successor: string,
): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  const body = await aesGcm.seal(
    await keyFrom(presentedToken),
    iv,
    additionalData(binding),
    utf8.encode(successor),
  );
  return `${VERSION}.${base64urlEncode(body)}`;
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
  try {
    const bytes = base64urlDecode(body);
    if (bytes.length <= IV_BYTES + TAG_BYTES) return undefined;
    const plain = await aesGcm.open(await keyFrom(presentedToken), bytes, additionalData(binding));
    return new TextDecoder('utf-8', { fatal: true }).decode(plain);
  } catch {
    return undefined;
  }
}
