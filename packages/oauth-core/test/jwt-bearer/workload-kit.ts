import { randomUUID } from 'node:crypto';
import type { TenantConfig } from '../../src/index.js';
import { ISSUER } from '../helpers.js';
import type { TestIdp } from './id-jag-kit.js';
import { type AssertionKnobs, signAssertion } from './jwt-bearer-kit.js';

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

/** One defect at a time: each knob breaks one rule a workload JWT must follow (typ default `JWT`). */
export type WorkloadKnobs = AssertionKnobs;

/** A workload JWT from `issuer` at `nowMs`: sub `repo:acme/app:ref:refs/heads/main`, aud the tenant issuer, 10 min. */
export async function mintWorkload(
  issuer: TestIdp,
  nowMs: number,
  knobs: WorkloadKnobs = {},
): Promise<string> {
  const iat = Math.floor(nowMs / 1000);
  const claims = {
    iss: issuer.issuer,
    sub: 'repo:acme/app:ref:refs/heads/main',
    aud: ISSUER,
    jti: randomUUID(),
    iat,
    exp: iat + 600,
  };
  return signAssertion(issuer, claims, 'JWT', knobs);
}
