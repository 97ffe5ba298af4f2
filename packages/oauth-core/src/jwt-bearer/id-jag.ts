import { onceKey } from '@keyhold/internal';
import type { JWTPayload } from 'jose';
import { isMachineSubject } from '../bearer.js';
import type { ClientAssertionAlgorithm } from '../client-keys.js';
import type { VerifiedProof } from '../dpop/proof.js';
import { verifyJwt } from '../jwt-verification.js';
import type { ServerContext } from '../options.js';
import type { RequestEvent } from '../request-event.js';
import { canonicalResource } from '../resources.js';
import { parseScope } from '../scopes.js';
import type { Tenant } from '../tenant.js';
import { assertionKey } from './assertion-keys.js';
import type { ResolvedEnterpriseIssuer } from './enterprise-issuers.js';
import { refusal } from './refusal.js';

/** The JOSE `typ` of an Identity Assertion JWT Authorization Grant (draft-ietf-oauth-identity-assertion-authz-grant §3.1). */
export const ID_JAG_TYP = 'oauth-id-jag+jwt';

/** Tolerance for the IdP's clock on `exp`, `nbf` and `iat`. */
export const ID_JAG_CLOCK_SKEW_SECONDS = 60;
/** The longest an ID-JAG may live (`exp − iat`, and `exp − now`), before the skew: they are meant to be short. */
export const ID_JAG_MAX_LIFETIME_SECONDS = 300;
const MAX_JTI_LENGTH = 256;

/** What a verified ID-JAG grants, before the client's request narrows it. */
export interface VerifiedIdJag {
  readonly issuer: ResolvedEnterpriseIssuer;
  readonly payload: JWTPayload;
  /** The local user the assertion names. */
  readonly userId: string;
  /** The asserted scopes (`undefined`: the assertion carries no `scope`). */
  readonly scopes: readonly string[] | undefined;
  /** The asserted resources, canonical (`undefined`: no `resource` claim). */
  readonly resources: readonly string[] | undefined;
  readonly jti: string;
  readonly exp: number;
}

function readResources(claim: unknown): string[] | undefined | false {
  if (claim === undefined) return undefined;
  const values = typeof claim === 'string' ? [claim] : claim;
  if (!Array.isArray(values) || values.length === 0) return false;
  const canonical: string[] = [];
  for (const value of values) {
    const resource = typeof value === 'string' ? canonicalResource(value) : undefined;
    if (resource === undefined) return false;
    canonical.push(resource);
  }
  return canonical;
}

/**
 * Verifies an ID-JAG for the authenticated client (ID-JAG §4.4.1, RFC 7523 §3, MCP enterprise-managed
 * authorization §7): a trusted `iss`, an allowed `alg`, a signature by one of the IdP's keys (chosen by `kid`),
 * `aud` exactly the tenant issuer (a string or a one-element array), `client_id` the authenticated client and
 * one the IdP entry allows, `exp` ≤ `iat` + 300 s (+ skew), `iat` not in the future, a `jti` spent once per
 * issuer, and `cnf.jkt` (when present) matching the DPoP proof. Every refusal is `invalid_grant` with a
 * reason code on the event. The header `typ` was checked by the dispatcher.
 */
export async function verifyIdJag(
  context: ServerContext,
  tenant: Tenant,
  input: {
    readonly assertion: string;
    readonly alg: string | undefined;
    readonly kid: string | undefined;
    readonly unverifiedIssuer: string | undefined;
    readonly clientId: string;
    readonly proof: VerifiedProof | undefined;
    readonly event: RequestEvent;
  },
): Promise<VerifiedIdJag> {
  const { event } = input;
  const issuer = tenant.enterpriseIssuers.find((entry) => entry.issuer === input.unverifiedIssuer);
  if (issuer === undefined) {
    throw refusal(event, 'id_jag.issuer_not_trusted', 'the assertion issuer is not trusted by this server');
  }
  const alg = input.alg;
  if (alg === undefined || !(issuer.algorithms as readonly string[]).includes(alg)) {
    throw refusal(
      event,
      'id_jag.alg_not_allowed',
      `the assertion alg must be one of ${issuer.algorithms.join(', ')}`,
    );
  }
  const key = await assertionKey(
    context,
    { label: issuer.issuer, jwks: issuer.jwks, jwksUri: issuer.jwksUri },
    alg as ClientAssertionAlgorithm,
    input.kid,
    event,
    { unavailable: 'id_jag.keys_unavailable', notFound: 'id_jag.key_not_found' },
  );
  const now = context.clock.now();
  const skew = ID_JAG_CLOCK_SKEW_SECONDS;
  const verification = await verifyJwt(input.assertion, key, {
    algorithms: [alg],
    typ: ID_JAG_TYP,
    issuer: issuer.issuer,
    requiredClaims: ['sub', 'aud', 'exp', 'iat', 'jti', 'client_id'],
    nowMs: now,
    clockToleranceSeconds: skew,
  }).catch(() => undefined);
  if (verification === undefined || !verification.ok) {
    const code = verification?.code;
    if (code === 'ERR_JWT_EXPIRED') throw refusal(event, 'id_jag.expired', 'the assertion has expired');
    if (code === 'ERR_JWT_CLAIM_VALIDATION_FAILED') {
      const claim = verification?.ok === false ? verification.claim : undefined;
      if (claim === 'nbf') throw refusal(event, 'id_jag.not_yet_valid', 'the assertion is not valid yet');
      if (claim === 'iat')
        throw refusal(event, 'id_jag.issued_in_future', 'the assertion iat is in the future');
      throw refusal(
        event,
        'id_jag.claim_invalid',
        `the assertion claim "${String(claim)}" is missing or invalid`,
      );
    }
    throw refusal(event, 'id_jag.signature_invalid', 'the assertion signature does not verify');
  }
  const { payload } = verification;
  // Exact comparison: jose's `audience` also accepts any array that merely contains the value (ID-JAG §4.4.1).
  const aud = Array.isArray(payload.aud) && payload.aud.length === 1 ? payload.aud[0] : payload.aud;
  if (aud !== tenant.issuer) {
    throw refusal(
      event,
      'id_jag.audience_mismatch',
      `the assertion aud must be this issuer (${tenant.issuer}) alone`,
    );
  }
  if (payload['client_id'] !== input.clientId) {
    throw refusal(event, 'id_jag.client_mismatch', 'the assertion client_id is not the authenticated client');
  }
  if (!issuer.clients.includes(input.clientId)) {
    throw refusal(event, 'id_jag.client_not_allowed', 'this identity provider may not grant to this client');
  }
  const nowSeconds = now / 1000;
  const exp = payload.exp as number;
  const iat = payload.iat as number;
  if (iat - nowSeconds > skew) {
    throw refusal(event, 'id_jag.issued_in_future', 'the assertion iat is in the future');
  }
  const limit = ID_JAG_MAX_LIFETIME_SECONDS + skew;
  if (exp - iat > limit || exp - nowSeconds > limit) {
    throw refusal(
      event,
      'id_jag.lifetime_too_long',
      `the assertion lives too long: exp must be at most ${ID_JAG_MAX_LIFETIME_SECONDS} s after iat`,
    );
  }
  const sub = payload.sub;
  if (typeof sub !== 'string' || sub === '')
    throw refusal(event, 'id_jag.claim_invalid', 'the assertion sub is missing');
  if (payload['authorization_details'] !== undefined) {
    // Fail closed: RFC 9396 details this server does not evaluate must not be silently dropped.
    throw refusal(
      event,
      'id_jag.authorization_details_unsupported',
      'authorization_details are not supported',
    );
  }
  const cnf = payload['cnf'];
  if (cnf !== undefined) {
    const jkt = typeof cnf === 'object' && cnf !== null ? (cnf as { jkt?: unknown }).jkt : undefined;
    if (typeof jkt !== 'string')
      throw refusal(event, 'id_jag.cnf_unsupported', 'the assertion cnf must carry jkt');
    // ID-JAG "Proof-of-Possession During ID-JAG Exchange": a key-bound assertion needs a proof by that key.
    if (input.proof === undefined || input.proof.jkt !== jkt) {
      throw refusal(
        event,
        'id_jag.cnf_mismatch',
        'the assertion is bound to a key the DPoP proof does not use',
      );
    }
  }
  const resources = readResources(payload['resource']);
  if (resources === false)
    throw refusal(event, 'id_jag.claim_invalid', 'the assertion resource claim is malformed');
  let scopes: string[] | undefined;
  if (payload['scope'] !== undefined) {
    scopes = typeof payload['scope'] === 'string' ? parseScope(payload['scope']) : undefined;
    if (scopes === undefined)
      throw refusal(event, 'id_jag.claim_invalid', 'the assertion scope claim is malformed');
  }
  const userId = await localUser(issuer, sub, event);
  const jti = payload.jti;
  if (typeof jti !== 'string' || jti === '' || jti.length > MAX_JTI_LENGTH) {
    throw refusal(
      event,
      'id_jag.claim_invalid',
      `the assertion jti must be 1 to ${MAX_JTI_LENGTH} characters`,
    );
  }
  if (context.storage.onceStore === undefined) {
    throw refusal(event, 'id_jag.replay_store_missing', 'this server cannot accept ID-JAGs');
  }
  return { issuer, payload, userId, scopes, resources, jti, exp };
}

/**
 * Spends the verified ID-JAG's `jti` (per tenant and issuer) in the one spend-once store, or refuses it as a
 * replay. Called last, after every check that needs no state, so a refused assertion is not burnt. The key is
 * kept until exp + skew, the last moment the assertion could still be accepted.
 */
export async function spendIdJag(
  context: ServerContext,
  tenant: Tenant,
  verified: VerifiedIdJag,
  event: RequestEvent,
): Promise<void> {
  const onceStore = context.storage.onceStore;
  if (onceStore === undefined)
    throw refusal(event, 'id_jag.replay_store_missing', 'this server cannot accept ID-JAGs');
  const { issuer, jti, exp } = verified;
  const now = context.clock.now();
  const first = await onceStore.consume(
    onceKey('id-jag', tenant.slug, issuer.issuer, jti),
    (exp + ID_JAG_CLOCK_SKEW_SECONDS) * 1000,
    now,
  );
  if (!first) {
    context.logger.warn(
      { event: 'replay_detected', reason: 'id_jag.replayed', tenant: tenant.slug, issuer: issuer.issuer },
      'ID-JAG replayed',
    );
    throw refusal(event, 'id_jag.replayed', 'the assertion was already used (its jti is single use)');
  }
}

async function localUser(
  issuer: ResolvedEnterpriseIssuer,
  sub: string,
  event: RequestEvent,
): Promise<string> {
  if (issuer.users !== undefined) {
    const userId = await issuer.users.findUser({ issuer: issuer.issuer, subject: sub });
    if (userId === undefined) {
      throw refusal(event, 'id_jag.subject_unknown', 'the assertion subject is not a known user');
    }
    return userId;
  }
  // Used as the local user id as is: never one of the machine subjects this server mints.
  if (isMachineSubject(sub)) {
    throw refusal(event, 'id_jag.subject_invalid', 'the assertion subject cannot name a local user');
  }
  return sub;
}
