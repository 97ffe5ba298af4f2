import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

// The successor of a rotated refresh token is kept on the old token's row so that the same client
// presenting the old token again within the reuse window gets the same successor. It is sealed with
// AES-256-GCM under a key derived (HKDF-SHA256) from the OLD token's value: the store holds only that
// token's SHA-256, so a copy of the database reveals no live refresh token, while whoever presents the old
// token proves they can open it. The AAD binds the blob to its tenant and row.

const VERSION = 'r1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const INFO = Buffer.from('keyhold/oauth-core refresh successor v1', 'utf8');
const NO_SALT = Buffer.alloc(0);

/** Where a sealed successor sits: the tenant and the SHA-256 of the token it was rotated from. */
export interface SuccessorBinding {
  readonly tenant: string;
  readonly tokenHash: string;
}

function keyFrom(presentedToken: string): Buffer {
  return Buffer.from(hkdfSync('sha256', Buffer.from(presentedToken, 'utf8'), NO_SALT, INFO, 32));
}

function additionalData(binding: SuccessorBinding): Buffer {
  return Buffer.from(JSON.stringify([VERSION, binding.tenant, binding.tokenHash]), 'utf8');
}

/** Seals `successor` under a key derived from `presentedToken`: `r1.<base64url(iv ‖ tag ‖ ciphertext)>`. */
export function sealSuccessor(presentedToken: string, binding: SuccessorBinding, successor: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', keyFrom(presentedToken), iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(additionalData(binding));
  const ciphertext = Buffer.concat([cipher.update(successor, 'utf8'), cipher.final()]);
  return `${VERSION}.${Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64url')}`;
}

/**
 * Opens what {@link sealSuccessor} produced; `undefined` when the value is malformed or does not
 * authenticate under the presented token (never the case for the token it was sealed from).
 */
export function openSuccessor(
  presentedToken: string,
  binding: SuccessorBinding,
  sealed: string,
): string | undefined {
  const [version, body, ...rest] = sealed.split('.');
  if (version !== VERSION || body === undefined || rest.length > 0) return undefined;
  const bytes = Buffer.from(body, 'base64url');
  if (bytes.length <= IV_BYTES + TAG_BYTES) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', keyFrom(presentedToken), bytes.subarray(0, IV_BYTES), {
      authTagLength: TAG_BYTES,
    });
    decipher.setAAD(additionalData(binding));
    decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString(
      'utf8',
    );
  } catch {
    return undefined;
  }
}
