import { generateKeyPairSync, randomUUID, sign } from 'node:crypto';

/** A test token issuer (an enterprise IdP, a CI system): its public key for a trust file, and its signer. */
export interface TestIssuer {
  /** The public key as a JWK with its `kid`, for the `jwks` of a KEYHOLD_TRUST_POLICIES entry. */
  readonly publicJwk: JsonWebKey & { readonly kid: string };
  /** An ES256 JWT of type `typ` carrying `claims`, then a fresh `jti` and a five-minute lifetime from now. */
  mint(typ: string, claims: Record<string, unknown>): string;
}

/**
 * A new P-256 key pair named `kid`, signing with node:crypto: the host's tests have no JOSE library of their
 * own, and what they test is the host's verification, not a signer's.
 *
 * @example
 * ```ts
 * const idp = testIssuer('idp-1');
 * const assertion = idp.mint('oauth-id-jag+jwt', { iss: 'https://idp.example', sub: 'alice', aud: issuer });
 * ```
 */
export function testIssuer(kid: string): TestIssuer {
  const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return {
    publicJwk: { ...pair.publicKey.export({ format: 'jwk' }), kid },
    mint(typ, claims) {
      const now = Math.floor(Date.now() / 1000);
      const header = encode({ alg: 'ES256', typ, kid });
      const payload = encode({ ...claims, jti: randomUUID(), iat: now, exp: now + 300 });
      const signature = sign('sha256', Buffer.from(`${header}.${payload}`), {
        key: pair.privateKey,
        dsaEncoding: 'ieee-p1363',
      });
      return `${header}.${payload}.${signature.toString('base64url')}`;
    },
  };
}

/** The text of an MCP tool result's content parts, joined. */
export function textOf(result: unknown): string {
  const content = (result as { content: { type: string; text: string }[] }).content;
  return content.map((part) => part.text).join('');
}
