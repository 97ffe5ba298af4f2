import type { JWK } from 'jose';

/**
 * A tenant key as `node:crypto` `KeyObject`s, signing and verifying compact JWS synchronously. On Node this
 * is several times cheaper per token than WebCrypto through jose (no promise, no thread-pool hop, no key
 * re-wrapping). The output is byte for byte what jose produces: the header and claims are serialised with
 * `JSON.stringify` in the same order, and ES256 signatures are raw `r || s` (IEEE P1363), as JWS requires.
 */
export interface NativeJwsKey {
  /** The compact JWS of `claims` under the header `{ alg, kid, typ }`. */
  sign(typ: string, claims: object): string;
  /** Whether `signature` (base64url) is valid for `signingInput` (`header.payload`). Never throws. */
  verify(signingInput: string, signature: string): boolean;
}

type NodeCrypto = typeof import('node:crypto');

/** What a {@link NativeJwsKey} is made from: a shared secret, or a private JWK and its public part. */
export type NativeKeyMaterial =
  | { readonly alg: 'HS256' | 'HS384' | 'HS512'; readonly secret: Uint8Array }
  | { readonly alg: 'RS256' | 'ES256'; readonly privateJwk: JWK; readonly publicJwk: JWK };

let loading: Promise<NodeCrypto | undefined> | undefined;

/**
 * `node:crypto`, when the runtime is Node (or provides it under that name); `undefined` elsewhere, where
 * keys keep the WebCrypto path. Imported once, on first use, so the module stays loadable anywhere.
 */
export function loadNodeCrypto(): Promise<NodeCrypto | undefined> {
  loading ??= (async () => {
    const runtime = (globalThis as { process?: { versions?: { node?: unknown } } }).process;
    if (typeof runtime?.versions?.node !== 'string') return undefined;
    try {
      // A variable specifier keeps bundlers for other runtimes from trying to resolve it.
      const specifier = 'node:crypto';
      return (await import(specifier)) as NodeCrypto;
    } catch {
      return undefined;
    }
  })();
  return loading;
}

const BASE64URL = /^[A-Za-z0-9_-]+$/;
const HASHES = {
  HS256: 'sha256',
  HS384: 'sha384',
  HS512: 'sha512',
  RS256: 'sha256',
  ES256: 'sha256',
} as const;

/** Creates a {@link NativeJwsKey}; throws when `node:crypto` refuses the key material. */
export function createNativeJwsKey(
  nodeCrypto: NodeCrypto,
  kid: string,
  material: NativeKeyMaterial,
): NativeJwsKey {
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

  // What we sign is ASCII we built (base64url and dots): read as latin1, without a UTF-8 pass. What we verify
  // comes from outside: its bytes are taken as UTF-8, as jose takes them, so no other string maps onto them.
  let signBytes: (input: string) => Buffer;
  let verifyBytes: (input: Buffer, signature: Buffer) => boolean;
  if ('secret' in material) {
    const key = nodeCrypto.createSecretKey(material.secret);
    signBytes = (input) => nodeCrypto.createHmac(hash, key).update(input, 'latin1').digest();
    verifyBytes = (input, signature) => {
      const expected = nodeCrypto.createHmac(hash, key).update(input).digest();
      return expected.length === signature.length && nodeCrypto.timingSafeEqual(expected, signature);
    };
  } else {
    const privateKey = nodeCrypto.createPrivateKey({ key: material.privateJwk as never, format: 'jwk' });
    const publicKey = nodeCrypto.createPublicKey({ key: material.publicJwk as never, format: 'jwk' });
    if (material.alg === 'ES256') {
      signBytes = (input) =>
        nodeCrypto.sign(hash, Buffer.from(input, 'latin1'), { key: privateKey, dsaEncoding: 'ieee-p1363' });
      verifyBytes = (input, signature) =>
        signature.length === 64 &&
        nodeCrypto.verify(hash, input, { key: publicKey, dsaEncoding: 'ieee-p1363' }, signature);
    } else {
      signBytes = (input) => nodeCrypto.sign(hash, Buffer.from(input, 'latin1'), privateKey);
      verifyBytes = (input, signature) => nodeCrypto.verify(hash, input, publicKey, signature);
    }
  }

  return {
    sign(typ, claims) {
      const signingInput = `${encodedHeader(typ)}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
      return `${signingInput}.${signBytes(signingInput).toString('base64url')}`;
    },
    verify(signingInput, signature) {
      // jose's decoder refuses what cannot be base64url (a length of 4n + 1 included); Buffer would not.
      if (!BASE64URL.test(signature) || signature.length % 4 === 1) return false;
      try {
        return verifyBytes(Buffer.from(signingInput, 'utf8'), Buffer.from(signature, 'base64url'));
      } catch {
        return false;
      }
    },
  };
}
