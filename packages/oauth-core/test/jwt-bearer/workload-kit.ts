import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import type { TenantConfig } from '../../src/index.js';
import { ISSUER } from '../helpers.js';
import type { TestIdp } from './id-jag-kit.js';

/** A workload trust policy, as a tenant lists it (the type is not exported by name: the API has a budget). */
export type WorkloadPolicy = NonNullable<TenantConfig['workloads']>[number];

export const CI = 'https://ci.example';

/** A policy trusting `issuer`'s keys inline for subjects `repo:acme/*`, ceiling mcp:tools files:read. */
export function policyOf(issuer: TestIdp, extra: Partial<WorkloadPolicy> = {}): WorkloadPolicy {
  return {
    issuer: issuer.issuer,
    jwks: { keys: [issuer.publicJwk as never] },
    subject: 'repo:acme/*',
    scopes: ['mcp:tools', 'files:read'],
    ...extra,
  };
}

/** One defect at a time: each knob breaks one rule a workload JWT must follow. */
export interface WorkloadKnobs {
  /** `null`: no `typ` header; default `JWT`. */
  readonly typ?: string | null;
  readonly claims?: Record<string, unknown>;
  readonly omit?: readonly string[];
  readonly tamperSignature?: boolean;
  readonly kid?: string;
}

/** A workload JWT from `issuer` at `nowMs`: sub `repo:acme/app:ref:refs/heads/main`, aud the tenant issuer, 10 min. */
export async function mintWorkload(
  issuer: TestIdp,
  nowMs: number,
  knobs: WorkloadKnobs = {},
): Promise<string> {
  const iat = Math.floor(nowMs / 1000);
  const claims: Record<string, unknown> = {
    iss: issuer.issuer,
    sub: 'repo:acme/app:ref:refs/heads/main',
    aud: ISSUER,
    jti: randomUUID(),
    iat,
    exp: iat + 600,
    ...knobs.claims,
  };
  for (const name of knobs.omit ?? []) delete claims[name];
  const header: Record<string, unknown> = { alg: issuer.alg, kid: knobs.kid ?? issuer.publicJwk.kid };
  if (knobs.typ !== null) header.typ = knobs.typ ?? 'JWT';
  const jwt = await new SignJWT(claims).setProtectedHeader(header as { alg: string }).sign(issuer.privateKey);
  if (!knobs.tamperSignature) return jwt;
  const [head, body, signature] = jwt.split('.') as [string, string, string];
  return `${head}.${body}.${signature.startsWith('A') ? 'B' : 'A'}${signature.slice(1)}`;
}
