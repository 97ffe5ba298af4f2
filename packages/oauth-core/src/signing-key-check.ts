import type { JWK } from 'jose';
import { optionCheck } from './errors.js';
import type { SigningKeyConfig, SymmetricAlgorithm } from './signing-key-config.js';

// The checks here are synchronous and use only what every runtime has (TextEncoder, atob), so a static
// tenant table is checked when it is created and the lazy import, on first use, reports the same messages.

/** The shortest secret each HMAC algorithm accepts: as many bytes as its hash. */
export const HMAC_MIN_BYTES: Readonly<Record<SymmetricAlgorithm, number>> = {
  HS256: 32,
  HS384: 48,
  HS512: 64,
};

const SUPPORTED_ALGORITHMS = ['HS256', 'HS384', 'HS512', 'RS256', 'ES256'] as const;
const BASE64URL = /^[A-Za-z0-9_-]+$/;
const RSA_PRIVATE_MEMBERS = ['n', 'e', 'd', 'p', 'q', 'dp', 'dq', 'qi'] as const;
// A P-256 coordinate or private scalar is 32 bytes: 43 base64url characters without padding.
const P256_MEMBER_LENGTH = 43;

/**
 * Throws `ERR_INVALID_OPTIONS` for a signing key that cannot be imported: an empty kid, an unsupported alg,
 * a short HMAC secret, a JWK of the wrong type or without its private members, a malformed PEM. A key that
 * passes may still be refused by the import itself (numbers that do not form a key pair).
 */
export function checkSigningKeyConfig(config: SigningKeyConfig): void {
  if (typeof config !== 'object' || config === null)
    throw optionCheck.invalid('every signing key must be an object');
  if (typeof config.kid !== 'string' || config.kid === '') {
    throw optionCheck.invalid('every signing key needs a non-empty kid');
  }
  const invalid = (reason: string) => optionCheck.invalid(`signing key ${config.kid}: ${reason}`);
  const alg: unknown = config.alg;
  if (alg === 'HS256' || alg === 'HS384' || alg === 'HS512') {
    const secret: unknown = (config as { secret?: unknown }).secret;
    const bytes = typeof secret === 'string' ? new TextEncoder().encode(secret) : secret;
    if (!(bytes instanceof Uint8Array) || bytes.byteLength < HMAC_MIN_BYTES[alg]) {
      throw invalid(`${alg} needs a secret of at least ${HMAC_MIN_BYTES[alg]} bytes`);
    }
    return;
  }
  if (alg !== 'RS256' && alg !== 'ES256') {
    throw invalid(`unsupported alg ${JSON.stringify(alg)} (one of ${SUPPORTED_ALGORITHMS.join(', ')})`);
  }
  const privateKey: unknown = (config as { privateKey?: unknown }).privateKey;
  if (typeof privateKey === 'string') {
    checkPkcs8Pem(privateKey, alg, invalid);
  } else if (typeof privateKey === 'object' && privateKey !== null && !Array.isArray(privateKey)) {
    checkPrivateJwk(privateKey as JWK, alg, invalid);
  } else {
    throw invalid(`${alg} needs privateKey, a private JWK or a PKCS#8 PEM string`);
  }
}

/**
 * Throws `ERR_INVALID_OPTIONS` for a tenant's key list that cannot be used: not a non-empty array, a key
 * {@link checkSigningKeyConfig} refuses, a duplicate kid, more than one key marked active.
 */
export function checkSigningKeySet(configs: readonly SigningKeyConfig[]): void {
  if (!Array.isArray(configs) || configs.length === 0) {
    throw optionCheck.invalid('a tenant needs at least one signing key');
  }
  const kids = new Set<string>();
  for (const config of configs) {
    checkSigningKeyConfig(config);
    if (kids.has(config.kid)) throw optionCheck.invalid(`duplicate signing key kid ${config.kid}`);
    kids.add(config.kid);
  }
  if (configs.filter((config) => config.active === true).length > 1) {
    throw optionCheck.invalid('only one signing key may be active');
  }
}

type Refusal = (reason: string) => Error;

function checkPrivateJwk(jwk: JWK, alg: 'RS256' | 'ES256', invalid: Refusal): void {
  if (jwk.alg !== undefined && jwk.alg !== alg) {
    throw invalid(`the JWK says alg ${JSON.stringify(jwk.alg)}, the key is configured as ${alg}`);
  }
  const [kty, crv, members] =
    alg === 'RS256'
      ? (['RSA', undefined, RSA_PRIVATE_MEMBERS] as const)
      : (['EC', 'P-256', ['x', 'y', 'd']] as const);
  if (jwk.kty !== kty || (crv !== undefined && jwk.crv !== crv)) {
    const wanted = crv === undefined ? `kty "${kty}"` : `kty "${kty}" and crv "${crv}"`;
    const got =
      jwk.crv === undefined
        ? `kty ${JSON.stringify(jwk.kty)}`
        : `kty ${JSON.stringify(jwk.kty)}, crv ${JSON.stringify(jwk.crv)}`;
    throw invalid(`${alg} needs a JWK with ${wanted} (got ${got})`);
  }
  if (jwk.d === undefined) throw invalid('the JWK is a public key: a private key needs its "d" member');
  const missing = members.filter((name) => typeof jwk[name] !== 'string' || !BASE64URL.test(jwk[name]));
  if (missing.length > 0) {
    throw invalid(
      `the ${kty} JWK needs ${missing.map((name) => `"${name}"`).join(', ')} as base64url strings`,
    );
  }
  if (kty === 'EC') {
    const wrong = members.filter((name) => jwk[name]?.length !== P256_MEMBER_LENGTH);
    if (wrong.length > 0) {
      throw invalid(`the P-256 JWK members ${wrong.map((name) => `"${name}"`).join(', ')} must be 32 bytes`);
    }
  }
}

// Surrounding whitespace is forgiven (the import trims it too); padding may be left out, as atob allows.
const PEM = /^-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END ([A-Z0-9 ]+)-----$/;
const BASE64_BODY = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}(?:==)?|[A-Za-z0-9+/]{3}=?)?$/;

// The DER of the algorithm identifiers PKCS#8 names keys by (RFC 5208 §5), and what each holds.
const KEY_ALGORITHMS: Readonly<Record<string, string>> = {
  '2a864886f70d010101': 'an RSA key',
  '2a864886f70d01010a': 'an RSA-PSS key',
  '2a8648ce3d0201': 'an EC key',
  '2b6570': 'an Ed25519 key',
  '2b6571': 'an Ed448 key',
};
const RSA_ENCRYPTION = '2a864886f70d010101';
const EC_PUBLIC_KEY = '2a8648ce3d0201';
const PRIME256V1 = '2a8648ce3d030107';

function checkPkcs8Pem(pem: string, alg: 'RS256' | 'ES256', invalid: Refusal): void {
  const armour = PEM.exec(pem.trim());
  if (!armour)
    throw invalid('the PEM needs "-----BEGIN PRIVATE KEY-----" and "-----END PRIVATE KEY-----" lines');
  const [, begin, body = '', end] = armour;
  if (begin !== end) throw invalid(`the PEM begins with ${begin} but ends with ${end}`);
  if (begin !== 'PRIVATE KEY') {
    throw invalid(
      `the PEM is a ${begin}, not a PKCS#8 PRIVATE KEY (convert it with \`openssl pkcs8 -topk8 -nocrypt\`)`,
    );
  }
  const base64 = body.replace(/\s+/g, '');
  if (base64 === '' || !BASE64_BODY.test(base64)) throw invalid('the PEM body is not well-formed base64');
  const der = Uint8Array.from(atob(base64), (char) => char.charCodeAt(0));
  const algorithm = pkcs8Algorithm(der);
  if (!algorithm) throw invalid('the PEM body is not a PKCS#8 private key');
  const holds = KEY_ALGORITHMS[algorithm.oid] ?? 'an unrecognised key type';
  if (alg === 'RS256' && algorithm.oid !== RSA_ENCRYPTION) {
    throw invalid(`the PEM holds ${holds}, but RS256 needs an RSA key`);
  }
  if (alg === 'ES256' && (algorithm.oid !== EC_PUBLIC_KEY || algorithm.parameter !== PRIME256V1)) {
    const found = algorithm.oid === EC_PUBLIC_KEY ? 'an EC key on another curve' : holds;
    throw invalid(`the PEM holds ${found}, but ES256 needs an EC key on P-256`);
  }
}

interface DerElement {
  readonly tag: number;
  readonly start: number;
  readonly end: number;
}

function derElement(der: Uint8Array, offset: number, limit: number): DerElement | undefined {
  const tag = der[offset];
  let lengthByte = der[offset + 1];
  if (tag === undefined || lengthByte === undefined) return undefined;
  let start = offset + 2;
  let length = lengthByte;
  if (lengthByte & 0x80) {
    const count = lengthByte & 0x7f;
    if (count === 0 || count > 3) return undefined;
    length = 0;
    for (let index = 0; index < count; index++) {
      lengthByte = der[start + index];
      if (lengthByte === undefined) return undefined;
      length = length * 256 + lengthByte;
    }
    start += count;
  }
  const end = start + length;
  return end <= limit ? { tag, start, end } : undefined;
}

const hex = (bytes: Uint8Array): string =>
  Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');

/** The algorithm OID (and an OID parameter, the curve of an EC key) of a PKCS#8 `PrivateKeyInfo`, as hex. */
function pkcs8Algorithm(der: Uint8Array): { oid: string; parameter?: string } | undefined {
  const SEQUENCE = 0x30;
  const INTEGER = 0x02;
  const OID = 0x06;
  const info = derElement(der, 0, der.length);
  if (info?.tag !== SEQUENCE || info.end !== der.length) return undefined;
  const version = derElement(der, info.start, info.end);
  if (version?.tag !== INTEGER) return undefined;
  const identifier = derElement(der, version.end, info.end);
  if (identifier?.tag !== SEQUENCE) return undefined;
  const oid = derElement(der, identifier.start, identifier.end);
  if (oid?.tag !== OID) return undefined;
  const parameter = oid.end < identifier.end ? derElement(der, oid.end, identifier.end) : undefined;
  return {
    oid: hex(der.subarray(oid.start, oid.end)),
    ...(parameter?.tag === OID ? { parameter: hex(der.subarray(parameter.start, parameter.end)) } : {}),
  };
}
