// What the jwt-bearer grant tests share, whichever trust the assertion is judged by (ID-JAG or workload).
import type { HandlerResult, Logger } from '@keyhold/core';
import { calculateJwkThumbprint, SignJWT } from 'jose';
import { expect } from 'vitest';
import { makeProof, type ProofKey } from '../dpop/proof-kit.js';
import { decodePayload, ISSUER, postForm, type TestServer } from '../helpers.js';
import type { TestIdp } from './id-jag-kit.js';

/** The RFC 7523 grant type. */
export const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

/** A logger that keeps every line's fields in `logs`, so a test can read the refusal's reason code. */
export function capturingLogger(logs: Record<string, unknown>[]): Logger {
  const push = (fields: unknown) => {
    if (typeof fields === 'object' && fields !== null) logs.push(fields as Record<string, unknown>);
  };
  return { debug: push, info: push, warn: push, error: push } as Logger;
}

/** A jwt-bearer token request with `assertion` (none when undefined), `extra` form fields and `headers`. */
export function redeemAssertion(
  t: TestServer,
  assertion: string | undefined,
  extra: Record<string, string> = {},
  headers: Record<string, string> = {},
): Promise<HandlerResult> {
  return t.server.token(
    postForm(
      '/tenant/demo/token',
      { grant_type: JWT_BEARER, ...(assertion === undefined ? {} : { assertion }), ...extra },
      headers,
    ),
    'demo',
  );
}

/** A DPoP proof by `key` for a POST to the token endpoint, at the test server's clock. */
export function tokenEndpointProof(t: TestServer, key: ProofKey): Promise<string> {
  return makeProof(key, 'POST', `${ISSUER}/token`, t.clock.now());
}

/** Asserts that a token response's body is a DPoP token bound to `key`: token_type DPoP and its cnf.jkt. */
export async function expectBoundTo(body: Record<string, unknown>, key: ProofKey): Promise<void> {
  expect(body.token_type).toBe('DPoP');
  const jkt = await calculateJwkThumbprint(key.publicJwk, 'sha256');
  expect(decodePayload(String(body.access_token)).cnf).toEqual({ jkt });
}

/** One defect at a time: each knob breaks one rule an assertion (an ID-JAG, a workload JWT) must follow. */
export interface AssertionKnobs {
  /** `null`: no `typ` header; default the profile's own. */
  readonly typ?: string | null;
  readonly claims?: Record<string, unknown>;
  readonly omit?: readonly string[];
  readonly tamperSignature?: boolean;
  readonly kid?: string;
}

/** `claims` signed by `idp` with header `typ`, each after the knobs' changes (added, omitted, tampered). */
export async function signAssertion(
  idp: TestIdp,
  claims: Record<string, unknown>,
  typ: string,
  knobs: AssertionKnobs,
): Promise<string> {
  const payload: Record<string, unknown> = { ...claims, ...knobs.claims };
  for (const name of knobs.omit ?? []) delete payload[name];
  const header: Record<string, unknown> = { alg: idp.alg, kid: knobs.kid ?? idp.publicJwk.kid };
  if (knobs.typ !== null) header.typ = knobs.typ ?? typ;
  const jwt = await new SignJWT(payload).setProtectedHeader(header as { alg: string }).sign(idp.privateKey);
  if (!knobs.tamperSignature) return jwt;
  const [head, body, signature] = jwt.split('.') as [string, string, string];
  return `${head}.${body}.${signature.startsWith('A') ? 'B' : 'A'}${signature.slice(1)}`;
}
