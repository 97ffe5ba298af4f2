import { createHash, randomUUID } from 'node:crypto';
import type { CryptoKey, JWK } from 'jose';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';

/** A DPoP key pair as a client holds it: the private key and the public JWK a proof embeds. */
export interface ProofKey {
  readonly privateKey: CryptoKey;
  readonly publicJwk: JWK;
  readonly privateJwk: JWK;
  readonly alg: string;
}

export async function proofKey(alg = 'ES256'): Promise<ProofKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return { privateKey, publicJwk: await exportJWK(publicKey), privateJwk: await exportJWK(privateKey), alg };
}

/** One defect at a time: each knob breaks exactly one rule of RFC 9449 §4.2 / §4.3. */
export interface ProofKnobs {
  readonly htm?: string;
  readonly htu?: string;
  readonly iatSeconds?: number;
  readonly jti?: string;
  readonly accessToken?: string;
  readonly ath?: string;
  readonly nonce?: string;
  readonly typ?: string;
  readonly omit?: readonly ('jti' | 'htm' | 'htu' | 'iat' | 'jwk')[];
  readonly embedPrivateKey?: boolean;
  readonly jwk?: JWK;
  readonly tamperSignature?: boolean;
}

/** A proof signed with `key` for `htm htu` at `nowMs`, bent by `knobs`. */
export async function makeProof(
  key: ProofKey,
  htm: string,
  htu: string,
  nowMs: number,
  knobs: ProofKnobs = {},
): Promise<string> {
  const omit = new Set(knobs.omit ?? []);
  const claims: Record<string, unknown> = {
    jti: knobs.jti ?? randomUUID(),
    htm: knobs.htm ?? htm,
    htu: knobs.htu ?? htu,
    iat: knobs.iatSeconds ?? Math.floor(nowMs / 1000),
  };
  for (const name of omit) delete claims[name];
  if (knobs.accessToken !== undefined) {
    claims.ath = createHash('sha256').update(knobs.accessToken).digest('base64url');
  }
  if (knobs.ath !== undefined) claims.ath = knobs.ath;
  if (knobs.nonce !== undefined) claims.nonce = knobs.nonce;
  const jwk = knobs.jwk ?? (knobs.embedPrivateKey ? key.privateJwk : key.publicJwk);
  const header = {
    alg: key.alg,
    typ: knobs.typ ?? 'dpop+jwt',
    ...(omit.has('jwk') ? {} : { jwk }),
  };
  const proof = await new SignJWT(claims).setProtectedHeader(header).sign(key.privateKey);
  if (!knobs.tamperSignature) return proof;
  const [head, body, signature] = proof.split('.') as [string, string, string];
  const flipped = `${signature.startsWith('A') ? 'B' : 'A'}${signature.slice(1)}`;
  return `${head}.${body}.${flipped}`;
}

/** An unsigned (`alg: none`) or HMAC-signed (`HS256`) proof: what a server must never accept. */
export function forgedProof(
  alg: 'none' | 'HS256',
  key: ProofKey,
  htm: string,
  htu: string,
  nowMs: number,
): string {
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const head = encode({ alg, typ: 'dpop+jwt', jwk: key.publicJwk });
  const body = encode({ jti: randomUUID(), htm, htu, iat: Math.floor(nowMs / 1000) });
  if (alg === 'none') return `${head}.${body}.`;
  const mac = createHash('sha256').update(`${head}.${body}`).digest('base64url');
  return `${head}.${body}.${mac}`;
}
