import { onceKey } from '@keyhold/internal';
import type { JWTPayload } from 'jose';
import { decodeJwt } from 'jose';
import type { ClientAssertionAlgorithm } from '../client-keys.js';
import { hasControlCharacter } from '../control-characters.js';
import type { VerifiedProof } from '../dpop/proof.js';
import { OAuthError } from '../errors.js';
import { verifyJwt } from '../jwt-verification.js';
import type { ServerContext } from '../options.js';
import type { RequestEvent } from '../request-event.js';
import type { Tenant } from '../tenant.js';
import { assertionKey } from './assertion-keys.js';
import { refusal } from './refusal.js';
import type { ResolvedWorkloadPolicy } from './workload-policies.js';
import { subjectMatches } from './workload-subjects.js';

/** The JOSE `typ` values a workload JWT may carry (none, or the generic ones: JWT-SVID §2, RFC 7519 §5.1). */
export const WORKLOAD_TYPS: ReadonlySet<string | undefined> = new Set([undefined, 'jwt', 'jose']);

/** The longest `sub` and `jti` accepted: they end up in tokens, grant records and spend-once keys. */
const MAX_SUBJECT_LENGTH = 1024;
const MAX_JTI_LENGTH = 256;

// Claims only an OpenID Connect ID token carries: an ID token is a login result for a client, not a
// workload's credential (RFC 8725 §3.11), however its `typ` is spelled.
const ID_TOKEN_CLAIMS = ['nonce', 'at_hash', 'c_hash', 's_hash'] as const;

/** A workload JWT that satisfied one of the tenant's trust policies. */
export interface VerifiedWorkload {
  readonly policy: ResolvedWorkloadPolicy;
  readonly payload: JWTPayload;
  readonly sub: string;
  readonly jti: string | undefined;
  readonly exp: number;
}

/**
 * A refusal by one policy, and how far the JWT got under it: when every candidate policy refuses, the one
 * that got furthest names the reason (a subject mismatch says more than another policy's audience).
 */
interface PolicyRefusal {
  readonly stage: number;
  readonly reason: string;
  readonly description: string;
}

type PolicyOutcome =
  | { readonly ok: true; readonly verified: VerifiedWorkload }
  | ({ readonly ok: false } & PolicyRefusal);

function refused(stage: number, reason: string, description: string): PolicyOutcome {
  return { ok: false, stage, reason, description };
}

/** The SPIFFE trust domain of a SPIFFE ID (`spiffe://example.org/ns/x` → `example.org`), else `undefined`. */
function trustDomainOf(sub: unknown): string | undefined {
  if (typeof sub !== 'string' || !sub.startsWith('spiffe://')) return undefined;
  const rest = sub.slice('spiffe://'.length);
  const slash = rest.indexOf('/');
  // A workload's SPIFFE ID has a path; the bare trust domain names no workload.
  if (slash <= 0 || slash === rest.length - 1) return undefined;
  return rest.slice(0, slash);
}

function defaultAudiences(tenant: Tenant): readonly string[] {
  // The SDK and the conformance mock derive the issuer from metadata URLs, sometimes with a trailing slash.
  return [tenant.issuer, `${tenant.issuer}/`, `${tenant.issuer}/token`];
}

async function underPolicy(
  context: ServerContext,
  tenant: Tenant,
  policy: ResolvedWorkloadPolicy,
  input: DecodedWorkload,
): Promise<PolicyOutcome> {
  const alg = input.alg;
  if (alg === undefined || !(policy.algorithms as readonly string[]).includes(alg)) {
    return refused(
      1,
      'workload.alg_not_allowed',
      `the assertion alg must be one of ${policy.algorithms.join(', ')}`,
    );
  }
  let key: Awaited<ReturnType<typeof assertionKey>>;
  try {
    key = await assertionKey(
      context,
      { label: policy.label, jwks: policy.jwks, jwksUri: policy.jwksUri },
      alg as ClientAssertionAlgorithm,
      input.kid,
      input.event,
      { unavailable: 'workload.jwks_unreachable', notFound: 'workload.key_not_found' },
    );
  } catch (error) {
    if (!(error instanceof OAuthError)) throw error;
    // Another candidate policy may still accept the JWT: the reason is this policy's, not the request's yet.
    const reason = input.event.reason ?? 'workload.key_not_found';
    delete input.event.reason;
    return refused(2, reason, error.message);
  }
  const now = context.clock.now();
  const skew = policy.clockSkewSeconds;
  const required = ['sub', 'aud', 'exp'];
  if (policy.requireIat) required.push('iat');
  if (policy.requireJti) required.push('jti');
  const verification = await verifyJwt(input.assertion, key, {
    algorithms: [alg],
    ...(policy.issuer === undefined ? {} : { issuer: policy.issuer }),
    requiredClaims: required,
    nowMs: now,
    clockToleranceSeconds: skew,
  }).catch(() => undefined);
  if (verification === undefined || !verification.ok) {
    const code = verification?.code;
    if (code === 'ERR_JWT_EXPIRED') return refused(3, 'workload.expired', 'the assertion has expired');
    if (code === 'ERR_JWT_CLAIM_VALIDATION_FAILED') {
      const claim = verification?.ok === false ? verification.claim : undefined;
      if (claim === 'nbf') return refused(3, 'workload.not_yet_valid', 'the assertion is not valid yet');
      // jose names the claim both when it is missing and when it fails its check.
      if (claim === 'iat' && input.unverified.iat !== undefined) {
        return refused(3, 'workload.issued_in_future', 'the assertion iat is in the future');
      }
      return refused(
        3,
        'workload.claim_invalid',
        `the assertion claim "${String(claim)}" is missing or invalid`,
      );
    }
    return refused(2, 'workload.signature_failed', 'the assertion signature does not verify');
  }
  const { payload } = verification;
  const sub = payload.sub;
  if (
    typeof sub !== 'string' ||
    sub === '' ||
    sub.length > MAX_SUBJECT_LENGTH ||
    hasControlCharacter([sub])
  ) {
    return refused(3, 'workload.claim_invalid', 'the assertion sub is missing or malformed');
  }
  if (policy.spiffeTrustDomain !== undefined && trustDomainOf(sub) !== policy.spiffeTrustDomain) {
    return refused(3, 'workload.claim_invalid', 'the assertion sub is not a SPIFFE ID of the trust domain');
  }
  if (ID_TOKEN_CLAIMS.some((claim) => payload[claim] !== undefined)) {
    return refused(3, 'workload.id_token_refused', 'an ID token is not a workload credential');
  }
  // One audience, exactly one of the accepted ones: jose's `audience` would accept any array containing it.
  const aud = Array.isArray(payload.aud) && payload.aud.length === 1 ? payload.aud[0] : payload.aud;
  const audiences = policy.audiences ?? defaultAudiences(tenant);
  if (typeof aud !== 'string' || !audiences.includes(aud)) {
    return refused(
      4,
      'workload.audience_mismatch',
      'the assertion aud must be this authorization server alone',
    );
  }
  const nowSeconds = now / 1000;
  const exp = payload.exp as number;
  const iat = payload.iat;
  if (iat !== undefined && iat - nowSeconds > skew) {
    return refused(4, 'workload.issued_in_future', 'the assertion iat is in the future');
  }
  const limit = policy.maxLifetimeSeconds + skew;
  if (exp - (iat ?? nowSeconds) > limit || exp - nowSeconds > limit) {
    return refused(
      4,
      'workload.lifetime_too_long',
      `the assertion lives too long: exp must be at most ${policy.maxLifetimeSeconds} s after iat`,
    );
  }
  const jti = payload.jti;
  if (jti !== undefined && (typeof jti !== 'string' || jti === '' || jti.length > MAX_JTI_LENGTH)) {
    return refused(
      4,
      'workload.claim_invalid',
      `the assertion jti must be 1 to ${MAX_JTI_LENGTH} characters`,
    );
  }
  const cnf = payload['cnf'];
  if (cnf !== undefined) {
    const jkt = typeof cnf === 'object' && cnf !== null ? (cnf as { jkt?: unknown }).jkt : undefined;
    // A key-bound JWT is only as good as a proof by that key (as for ID-JAGs).
    if (typeof jkt !== 'string' || input.proof === undefined || input.proof.jkt !== jkt) {
      return refused(
        4,
        'workload.cnf_mismatch',
        'the assertion is bound to a key the DPoP proof does not use',
      );
    }
  }
  if (!subjectMatches(policy.subject, payload)) {
    return refused(5, 'workload.subject_not_allowed', 'the workload is not one the trust policy admits');
  }
  return { ok: true, verified: { policy, payload, sub, jti, exp } };
}

/** What the dispatcher read from the assertion before any verification. */
export interface WorkloadInput {
  readonly assertion: string;
  readonly alg: string | undefined;
  readonly kid: string | undefined;
  readonly proof: VerifiedProof | undefined;
  readonly event: RequestEvent;
}

/** {@link WorkloadInput} with its payload decoded, unverified: it picks the policies, it proves nothing. */
interface DecodedWorkload extends WorkloadInput {
  readonly unverified: JWTPayload;
}

/**
 * Verifies a workload JWT against the tenant's `workloads` (RFC 7523 §3, SEP-1933): the policies for its
 * `iss` (or, for SPIFFE policies, the trust domain of its `sub`) are tried in order and the first one the
 * JWT fully satisfies wins — an allowed `alg`, a signature by one of the issuer's keys, `sub`/`aud`/`exp`
 * (and `iat`/`jti` unless the policy waives them), one `aud` the policy accepts, a bounded lifetime, not an
 * ID token, `cnf.jkt` (when present) the DPoP proof's key, and a subject the policy admits. Every refusal
 * is `invalid_grant` with a `workload.*` reason on the event; nothing is spent here.
 */
export async function verifyWorkload(
  context: ServerContext,
  tenant: Tenant,
  input: WorkloadInput,
): Promise<VerifiedWorkload> {
  let unverified: JWTPayload;
  try {
    unverified = decodeJwt(input.assertion);
  } catch {
    throw refusal(input.event, 'jwt_bearer.malformed', 'assertion is not a signed JWT');
  }
  const domain = trustDomainOf(unverified.sub);
  const candidates = tenant.workloads.filter((policy) =>
    policy.issuer !== undefined ? policy.issuer === unverified.iss : policy.spiffeTrustDomain === domain,
  );
  if (candidates.length === 0) {
    throw refusal(
      input.event,
      'workload.issuer_not_trusted',
      'the assertion issuer is not trusted by this server',
    );
  }
  let furthest: PolicyRefusal | undefined;
  for (const policy of candidates) {
    const outcome = await underPolicy(context, tenant, policy, { ...input, unverified });
    if (outcome.ok) return outcome.verified;
    if (furthest === undefined || outcome.stage > furthest.stage) furthest = outcome;
  }
  const { reason, description } = furthest as PolicyRefusal;
  throw refusal(input.event, reason, description);
}

/**
 * Spends the verified JWT's `jti` (per tenant and policy issuer) in the one spend-once store, or refuses it
 * as a replay; a JWT without `jti` (a policy waiving it) spends nothing. Called last, after every check that
 * needs no state, so a refused JWT is not burnt. A store failure throws: the grant fails closed.
 */
export async function spendWorkload(
  context: ServerContext,
  tenant: Tenant,
  verified: VerifiedWorkload,
  event: RequestEvent,
): Promise<void> {
  const { policy, jti, exp } = verified;
  if (jti === undefined) return;
  const onceStore = context.storage.onceStore;
  if (onceStore === undefined) {
    throw refusal(event, 'workload.replay_store_missing', 'this server cannot accept workload assertions');
  }
  const first = await onceStore.consume(
    onceKey('workload', tenant.slug, policy.label, jti),
    (exp + policy.clockSkewSeconds) * 1000,
    context.clock.now(),
  );
  if (!first) {
    context.logger.warn(
      { event: 'replay_detected', reason: 'workload.replayed', tenant: tenant.slug, issuer: policy.label },
      'workload assertion replayed',
    );
    throw refusal(event, 'workload.replayed', 'the assertion was already used (its jti is single use)');
  }
}
