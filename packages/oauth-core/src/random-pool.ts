import { base64urlEncode } from '@keyhold/internal';
import { optionCheck } from './errors.js';

// Each CSPRNG call crosses into OpenSSL (or the platform's generator) and costs as much as a tenth of an HMAC signature; a token
// handler needs two or three values per request. Drawing them from a pool refilled 4 KiB at a time (what
// Node's own randomUUID does) removes that cost without weakening the values: every byte is used once.
const POOL_BYTES = 4096;
const pool = new Uint8Array(POOL_BYTES);
let offset = POOL_BYTES;

/**
 * A cryptographically random value of `byteLength` bytes (16–256), base64url-encoded: for codes, refresh
 * tokens and ids. The same entropy as `randomToken` from `@keyhold/core`, drawn from a buffered pool.
 */
export function pooledRandomToken(byteLength = 32): string {
  optionCheck.integerInRange('byteLength', byteLength, 32, { min: 16, max: 256 });
  if (offset + byteLength > POOL_BYTES) {
    crypto.getRandomValues(pool);
    offset = 0;
  }
  const value = base64urlEncode(pool.subarray(offset, offset + byteLength));
  // Zero what was handed out so the pool never holds a live secret.
  pool.fill(0, offset, offset + byteLength);
  offset += byteLength;
  return value;
}

/**
 * A new client id: 16 random bytes, base64url, never starting with `-`, which a command line (`keyhold
 * clients remove <id>`) would read as an option. One id in 64 is drawn again.
 */
export function newClientId(): string {
  for (;;) {
    const id = pooledRandomToken(16);
    if (!id.startsWith('-')) return id;
  }
}
