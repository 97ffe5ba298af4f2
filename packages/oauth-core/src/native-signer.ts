import type { JWK } from 'jose';

/**
 * A tenant key as `node:crypto` `KeyObject`s, signing compact JWS synchronously: on Node a one-shot
 * `crypto.sign` costs a fraction of jose's WebCrypto path (no promise, no thread-pool hop; see the
 * `signing` bench). It only signs: every token, ours included, is verified by jose. The output is byte
 * for byte what jose's `SignJWT` produces for HS* and RS256 (header and claims serialised by
 * `JSON.stringify` in the same order), and for ES256 the same header and payload bytes with a raw
 * `r || s` signature (IEEE P1363), as JWS requires; tests hold it to that.
 */
export interface NativeSigner {
  /** The compact JWS of `claims` under the header `{ alg, kid, typ }`. */
  sign(typ: string, claims: object): string;
}

type NodeCrypto = typeof import('node:crypto');
type NodeBuffer = typeof import('node:buffer').Buffer;

/** What a {@link NativeSigner} is made from: a shared secret, or a private JWK. */
export type NativeKeyMaterial =
  | { readonly alg: 'HS256' | 'HS384' | 'HS512'; readonly secret: Uint8Array }
  | { readonly alg: 'RS256' | 'ES256'; readonly privateJwk: JWK };

/** `node:crypto` and `Buffer`, when the runtime hands them out synchronously. */
export interface NodeBuiltins {
  readonly crypto: NodeCrypto;
  readonly Buffer: NodeBuffer;
}

let builtins: NodeBuiltins | null | undefined;

/**
 * `node:crypto` and `node:buffer` through `process.getBuiltinModule` (Node ≥ 20.16, Bun, Deno), never a
 * static import: the main entry stays loadable on workerd and in browsers, which sign through jose.
 * `undefined` where the runtime has no such module.
 */
export function nodeBuiltins(): NodeBuiltins | undefined {
  if (builtins === undefined) {
    builtins = null;
    const runtime = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
    try {
      const crypto = runtime?.getBuiltinModule?.('node:crypto') as NodeCrypto | undefined;
      const buffer = runtime?.getBuiltinModule?.('node:buffer') as { Buffer?: NodeBuffer } | undefined;
      if (typeof crypto?.sign === 'function' && typeof buffer?.Buffer?.from === 'function') {
        builtins = { crypto, Buffer: buffer.Buffer };
      }
    } catch {
      // A runtime that throws for an unknown built-in: jose it is.
    }
  }
  return builtins ?? undefined;
}

const HASHES = {
  HS256: 'sha256',
  HS384: 'sha384',
  HS512: 'sha512',
  RS256: 'sha256',
  ES256: 'sha256',
} as const;

/** Creates a {@link NativeSigner}; throws when `node:crypto` refuses the key material. */
export function createNativeSigner(
  { crypto, Buffer }: NodeBuiltins,
  kid: string,
  material: NativeKeyMaterial,
): NativeSigner {
  const { alg } = material;
  const hash = HASHES[alg];
  const headers = new Map<string, string>();
  const encodedHeader = (typ: string): string => {
    let header = headers.get(typ);
    if (header === undefined) {
      header = Buffer.from(JSON.stringify({ alg, kid, typ })).toString('base64url');
      // A key signs with one or two typ values (access and id tokens); the bound guards against misuse.
      if (headers.size < 8) headers.set(typ, header);
    }
    return header;
  };

  // The signing input is ASCII we built (base64url and a dot): read as latin1, without a UTF-8 pass.
  let signBytes: (input: string) => Uint8Array;
  if ('secret' in material) {
    const key = crypto.createSecretKey(material.secret);
    signBytes = (input) => crypto.createHmac(hash, key).update(input, 'latin1').digest();
  } else {
    const privateKey = crypto.createPrivateKey({ key: material.privateJwk as never, format: 'jwk' });
    const options =
      material.alg === 'ES256' ? { key: privateKey, dsaEncoding: 'ieee-p1363' as const } : privateKey;
    signBytes = (input) => crypto.sign(hash, Buffer.from(input, 'latin1'), options);
  }

  return {
    sign(typ, claims) {
      const signingInput = `${encodedHeader(typ)}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
      const signature = signBytes(signingInput);
      return `${signingInput}.${Buffer.from(signature.buffer, signature.byteOffset, signature.byteLength).toString('base64url')}`;
    },
  };
}
