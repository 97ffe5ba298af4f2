import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { GeneratedDataKey, KeyManagementService } from '../src/vault/kms-vault.js';

/** An in-process {@link KeyManagementService} for tests, with call counters and key rotation. */
export interface TestKms extends KeyManagementService {
  /** How many data keys were generated. */
  readonly generateCalls: number;
  /** How many data keys were unwrapped. */
  readonly decryptCalls: number;
  /** The id new data keys are wrapped with. */
  readonly currentKeyId: string;
  /** Starts wrapping with a new key id; older ids keep unwrapping. */
  rotate(keyId: string): void;
  /** Forgets a key id, as a KMS does after a key is deleted. */
  destroy(keyId: string): void;
}

/**
 * Creates an in-process KMS: each key id is a random AES-256-GCM wrapping key, and the tenant id is bound as
 * the encryption context (AAD), as a real KMS binds its encryption context.
 *
 * @example
 * ```ts
 * const kms = createTestKms();
 * const vault = createKmsVault({ kms });
 * ```
 */
export function createTestKms(options: { keyId?: string } = {}): TestKms {
  const wrappingKeys = new Map<string, Buffer>();
  let currentKeyId = options.keyId ?? 'test-kms-1';
  wrappingKeys.set(currentKeyId, randomBytes(32));
  let generateCalls = 0;
  let decryptCalls = 0;

  return {
    get generateCalls() {
      return generateCalls;
    },
    get decryptCalls() {
      return decryptCalls;
    },
    get currentKeyId() {
      return currentKeyId;
    },
    rotate(keyId) {
      wrappingKeys.set(keyId, randomBytes(32));
      currentKeyId = keyId;
    },
    destroy(keyId) {
      wrappingKeys.delete(keyId);
    },
    async generateDataKey({ tenantId }): Promise<GeneratedDataKey> {
      generateCalls += 1;
      const plaintextKey = randomBytes(32);
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', wrappingKeys.get(currentKeyId)!, iv, {
        authTagLength: 16,
      });
      cipher.setAAD(Buffer.from(tenantId, 'utf8'));
      const wrapped = Buffer.concat([cipher.update(plaintextKey), cipher.final()]);
      return {
        keyId: currentKeyId,
        plaintextKey: new Uint8Array(plaintextKey),
        encryptedKey: new Uint8Array(Buffer.concat([iv, cipher.getAuthTag(), wrapped])),
      };
    },
    async decryptDataKey({ tenantId, keyId, encryptedKey }): Promise<Uint8Array> {
      decryptCalls += 1;
      const wrappingKey = wrappingKeys.get(keyId);
      if (wrappingKey === undefined) throw new Error(`test KMS: no key ${keyId}`);
      const bytes = Buffer.from(encryptedKey);
      const decipher = createDecipheriv('aes-256-gcm', wrappingKey, bytes.subarray(0, 12), {
        authTagLength: 16,
      });
      decipher.setAAD(Buffer.from(tenantId, 'utf8'));
      decipher.setAuthTag(bytes.subarray(12, 28));
      return new Uint8Array(Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]));
    },
  };
}
