// AES-256-GCM in the layout Keyhold stores (the token vault's sealed values, oauth-core's sealed refresh
// successors), iv (12 bytes) ‖ tag (16) ‖ ciphertext, on two engines: WebCrypto everywhere, and node:crypto's
// cipher where the runtime has one. WebCrypto alone would do, but on Node each subtle call is a thread-pool
// round trip that made an encrypt + decrypt about five times slower than the synchronous cipher
// (bench/token-vault.bench.ts), on the path of every `requestToken`. node:crypto is reached through
// `process.getBuiltinModule`, not an import, so main entries still load without Node built-ins. Both engines
// give the same bytes for the same key and IV; tests run the stored values and tampering through each.

const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * One AES-256-GCM engine, given 32-byte keys (sealed-value.ts checks them). `seal` answers
 * `iv ‖ tag ‖ ciphertext`; `open` takes that and rejects when it fails authentication.
 */
export interface AesGcm {
  seal(
    key: Uint8Array,
    iv: Uint8Array,
    additionalData: Uint8Array,
    plaintext: Uint8Array,
  ): Promise<Uint8Array>;
  /** `body` is at least iv + tag long (the caller checks, to answer a malformed value its own way). */
  open(key: Uint8Array, body: Uint8Array, additionalData: Uint8Array): Promise<Uint8Array>;
}

// Both vaults keep each raw key in a cache for as long as they use it, so keying the imported CryptoKey on
// the raw key's identity imports each key once rather than on every seal and open.
const imported = new WeakMap<Uint8Array, Promise<CryptoKey>>();

function cryptoKeyOf(key: Uint8Array): Promise<CryptoKey> {
  let cryptoKey = imported.get(key);
  if (cryptoKey === undefined) {
    cryptoKey = crypto.subtle.importKey('raw', new Uint8Array(key), 'AES-GCM', false, ['encrypt', 'decrypt']);
    cryptoKey.catch(() => imported.delete(key));
    imported.set(key, cryptoKey);
  }
  return cryptoKey;
}

/** AES-256-GCM through WebCrypto (`crypto.subtle`), which answers ciphertext ‖ tag: reordered here. */
export const webCryptoAesGcm: AesGcm = {
  async seal(key, iv, additionalData, plaintext) {
    const sealed = new Uint8Array(
      await crypto.subtle.encrypt(
        {
          name: 'AES-GCM',
          iv: new Uint8Array(iv),
          additionalData: new Uint8Array(additionalData),
          tagLength: TAG_BYTES * 8,
        },
        await cryptoKeyOf(key),
        new Uint8Array(plaintext),
      ),
    );
    const ciphertextBytes = sealed.length - TAG_BYTES;
    const body = new Uint8Array(IV_BYTES + sealed.length);
    body.set(iv, 0);
    body.set(sealed.subarray(ciphertextBytes), IV_BYTES);
    body.set(sealed.subarray(0, ciphertextBytes), IV_BYTES + TAG_BYTES);
    return body;
  },
  async open(key, body, additionalData) {
    const sealed = new Uint8Array(body.length - IV_BYTES);
    sealed.set(body.subarray(IV_BYTES + TAG_BYTES), 0);
    sealed.set(body.subarray(IV_BYTES, IV_BYTES + TAG_BYTES), sealed.length - TAG_BYTES);
    return new Uint8Array(
      await crypto.subtle.decrypt(
        {
          name: 'AES-GCM',
          iv: body.slice(0, IV_BYTES),
          additionalData: new Uint8Array(additionalData),
          tagLength: TAG_BYTES * 8,
        },
        await cryptoKeyOf(key),
        sealed,
      ),
    );
  },
};

/** The part of node:crypto the Node engine uses. */
interface NodeCiphers {
  createCipheriv(
    algorithm: 'aes-256-gcm',
    key: Uint8Array,
    iv: Uint8Array,
    options: { authTagLength: number },
  ): {
    setAAD(data: Uint8Array): unknown;
    update(data: Uint8Array): Uint8Array;
    final(): Uint8Array;
    getAuthTag(): Uint8Array;
  };
  createDecipheriv(
    algorithm: 'aes-256-gcm',
    key: Uint8Array,
    iv: Uint8Array,
    options: { authTagLength: number },
  ): {
    setAAD(data: Uint8Array): unknown;
    setAuthTag(tag: Uint8Array): unknown;
    update(data: Uint8Array): Uint8Array;
    final(): Uint8Array;
  };
}

function nodeEngine(node: NodeCiphers): AesGcm {
  return {
    async seal(key, iv, additionalData, plaintext) {
      const cipher = node.createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
      cipher.setAAD(additionalData);
      const head = cipher.update(plaintext);
      const tail = cipher.final();
      const body = new Uint8Array(IV_BYTES + TAG_BYTES + head.length + tail.length);
      body.set(iv, 0);
      body.set(cipher.getAuthTag(), IV_BYTES);
      body.set(head, IV_BYTES + TAG_BYTES);
      body.set(tail, IV_BYTES + TAG_BYTES + head.length);
      return body;
    },
    async open(key, body, additionalData) {
      const decipher = node.createDecipheriv('aes-256-gcm', key, body.subarray(0, IV_BYTES), {
        authTagLength: TAG_BYTES,
      });
      decipher.setAAD(additionalData);
      decipher.setAuthTag(body.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      const head = decipher.update(body.subarray(IV_BYTES + TAG_BYTES));
      const tail = decipher.final();
      const plaintext = new Uint8Array(head.length + tail.length);
      plaintext.set(head, 0);
      plaintext.set(tail, head.length);
      return plaintext;
    },
  };
}

const nodeCrypto = (
  globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }
).process?.getBuiltinModule?.('node:crypto') as Partial<NodeCiphers> | undefined;

/** node:crypto's engine, where the runtime has one (Node, Bun, Deno, workerd with nodejs_compat). */
export const nodeAesGcm: AesGcm | undefined =
  typeof nodeCrypto?.createCipheriv === 'function' && typeof nodeCrypto.createDecipheriv === 'function'
    ? nodeEngine(nodeCrypto as NodeCiphers)
    : undefined;

/** The engine the vaults use: node:crypto's where there is one, WebCrypto everywhere else. */
export const aesGcm: AesGcm = nodeAesGcm ?? webCryptoAesGcm;
