// HMAC-SHA256 through WebCrypto, the same on every runtime (no node:crypto import in the main entry). Each
// key is imported once, on its first use, and kept by the verifier that owns it.

const encoder = new TextEncoder();

/** Signs messages with one key: the HMAC-SHA256 of a message's UTF-8, as bytes. */
export type HmacSha256 = (message: string) => Promise<Uint8Array>;

/** An {@link HmacSha256} for `key` (a string is its UTF-8). */
export function hmacSha256(key: string | Uint8Array<ArrayBuffer>): HmacSha256 {
  let imported: Promise<CryptoKey> | undefined;
  return async (message) => {
    imported ??= crypto.subtle.importKey(
      'raw',
      typeof key === 'string' ? encoder.encode(key) : key,
      { name: 'HMAC', hash: 'SHA-256' },
      false,
      ['sign'],
    );
    return new Uint8Array(await crypto.subtle.sign('HMAC', await imported, encoder.encode(message)));
  };
}

/** Lower-case hex, as GitHub and Stripe write signatures. */
export function toHex(bytes: Uint8Array): string {
  let out = '';
  for (const byte of bytes) out += byte.toString(16).padStart(2, '0');
  return out;
}

/** Standard base64 with padding, as Standard Webhooks writes signatures. */
export function toBase64(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes));
}
