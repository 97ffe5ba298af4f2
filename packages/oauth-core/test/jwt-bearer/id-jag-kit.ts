import { randomUUID } from 'node:crypto';
import type { CryptoKey, JWK } from 'jose';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import type { EnterpriseIssuer } from '../../src/index.js';
import { ISSUER, RESOURCE } from '../helpers.js';
import { type AssertionKnobs, signAssertion } from './jwt-bearer-kit.js';

export const IDP = 'https://idp.example';

/** A test enterprise IdP: an ES256 key pair and the public JWK it publishes (kid `idp-1`). */
export interface TestIdp {
  readonly issuer: string;
  readonly privateKey: CryptoKey;
  readonly publicJwk: JWK;
  readonly alg: string;
}

export async function testIdp(
  issuer: string = IDP,
  alg: string = 'ES256',
  kid: string = 'idp-1',
): Promise<TestIdp> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return { issuer, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid }, alg };
}

export function trustOf(
  idp: TestIdp,
  clientId: string,
  extra: Partial<EnterpriseIssuer> = {},
): EnterpriseIssuer {
  return {
    issuer: idp.issuer,
    jwks: { keys: [idp.publicJwk as never] },
    clients: [clientId],
    scopes: ['mcp:tools', 'files:read'],
    ...extra,
  };
}

/** One defect at a time: each knob breaks one rule an ID-JAG must follow (typ default `oauth-id-jag+jwt`). */
export type IdJagKnobs = AssertionKnobs;

/** An ID-JAG from `idp` for `clientId` at `nowMs` (5 minutes, sub `user-1`, resource the tenant's MCP). */
export async function mintIdJag(
  idp: TestIdp,
  clientId: string,
  nowMs: number,
  knobs: IdJagKnobs = {},
): Promise<string> {
  const iat = Math.floor(nowMs / 1000);
  const claims = {
    iss: idp.issuer,
    sub: 'user-1',
    aud: ISSUER,
    client_id: clientId,
    resource: RESOURCE,
    scope: 'mcp:tools',
    jti: randomUUID(),
    iat,
    exp: iat + 300,
  };
  return signAssertion(idp, claims, 'oauth-id-jag+jwt', knobs);
}

/** An unsigned (`none`) or HMAC-signed (`HS256`) assertion: never accepted. */
export async function forgedIdJag(alg: 'none' | 'HS256', clientId: string, nowMs: number): Promise<string> {
  const iat = Math.floor(nowMs / 1000);
  const payload = {
    iss: IDP,
    sub: 'user-1',
    aud: ISSUER,
    client_id: clientId,
    jti: randomUUID(),
    iat,
    exp: iat + 300,
  };
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  if (alg === 'none') return `${encode({ alg: 'none', typ: 'oauth-id-jag+jwt' })}.${encode(payload)}.`;
  return new SignJWT(payload)
    .setProtectedHeader({ alg: 'HS256', typ: 'oauth-id-jag+jwt' })
    .sign(new TextEncoder().encode('a-shared-secret-of-at-least-32-bytes!!'));
}
