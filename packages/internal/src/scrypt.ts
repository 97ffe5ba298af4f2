import type { ScryptParameters } from './scrypt-portable.js';
import { assertScryptParameters, scryptPortable } from './scrypt-portable.js';

/** The part of node:crypto this file uses. */
interface NodeScrypt {
  scrypt(
    password: Uint8Array,
    salt: Uint8Array,
    keyLength: number,
    options: { N: number; r: number; p: number; maxmem: number },
    callback: (error: Error | null, key: Uint8Array) => void,
  ): void;
}

// Node's native scrypt where the runtime has one (Node, Bun, Deno, workerd with nodejs_compat), reached
// without an import so that a main entry names no Node built-in; the portable scrypt everywhere else.
const nodeCrypto = (
  globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }
).process?.getBuiltinModule?.('node:crypto') as Partial<NodeScrypt> | undefined;

/**
 * A scrypt implementation: {@link scrypt} picks one for the runtime; a test passes {@link scryptPortable}
 * where a component takes one, to prove both derive the same bytes.
 *
 * @example
 * ```ts
 * const derive: Scrypt = scrypt;
 * ```
 */
export type Scrypt = (
  password: Uint8Array,
  salt: Uint8Array,
  parameters: ScryptParameters,
) => Promise<Uint8Array<ArrayBuffer>>;

function nativeScrypt(native: NodeScrypt): Scrypt {
  return async (password, salt, parameters) => {
    // Checked here too, so both paths refuse the same parameters with the same error (a rejection).
    assertScryptParameters(parameters);
    const { cost, blockSize, parallelization, keyLengthBytes, maxMemoryBytes } = parameters;
    return new Promise((resolve, reject) => {
      native.scrypt(
        password,
        salt,
        keyLengthBytes,
        { N: cost, r: blockSize, p: parallelization, maxmem: maxMemoryBytes },
        // Copied out of Node's buffer subclass into a plain Uint8Array: callers get the same type on every runtime.
        (error, key) => (error ? reject(error) : resolve(new Uint8Array(key))),
      );
    });
  };
}

/**
 * scrypt (RFC 7914): node:crypto's, off the event loop, where the runtime has it, else
 * {@link scryptPortable}. Both give the same bytes and refuse the same parameters (a {@link CoreError}
 * `ERR_INVALID_OPTIONS`, also when the derivation would need more than `maxMemoryBytes`).
 *
 * @example
 * ```ts
 * const key = await scrypt(masterKey, new TextEncoder().encode(salt), {
 *   cost: 2 ** 15, blockSize: 8, parallelization: 1, keyLengthBytes: 32, maxMemoryBytes: 64 * 1024 * 1024,
 * });
 * ```
 */
export const scrypt: Scrypt =
  typeof nodeCrypto?.scrypt === 'function' ? nativeScrypt(nodeCrypto as NodeScrypt) : scryptPortable;
