import { decodeJwt, decodeProtectedHeader } from 'jose';
import { WORKLOAD_SUBJECT_PREFIX } from '../bearer.js';
import type { ResolvedClient } from '../clients.js';
import { OAuthError } from '../errors.js';
import { openGrant } from '../grant-records.js';
import { ID_JAG_TYP, spendIdJag, verifyIdJag } from '../jwt-bearer/id-jag.js';
import { refusal } from '../jwt-bearer/refusal.js';
import { spendWorkload, verifyWorkload, WORKLOAD_TYPS } from '../jwt-bearer/workload.js';
import type { ServerContext } from '../options.js';
import { audienceFor, canonicalResource, parseResources } from '../resources.js';
import { formatScope, parseScope } from '../scopes.js';
import type { ClientType } from '../storage.js';
import type { Tenant } from '../tenant.js';
import type { Grant, GrantInput } from './grant.js';
import { authenticateGrantClient } from './grant-client.js';
import { issueTokens } from './issue-tokens.js';

/**
 * The jwt-bearer grant type (RFC 7523 §2.1).
 *
 * @example
 * ```ts
 * formEncode({ grant_type: JWT_BEARER_GRANT, assertion: idJag });
 * ```
 */
export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

/** The grant profile advertised in `authorization_grant_profiles_supported` (ID-JAG §7.2). */
export const ID_JAG_GRANT_PROFILE = 'urn:ietf:params:oauth:grant-profile:id-jag';

/** The largest assertion accepted (16 KiB): ID-JAGs with authorization details outgrow other parameters. */
export const MAX_ASSERTION_LENGTH = 16_384;

/** Whether the tenant redeems ID-JAGs: it trusts an IdP and the server has the replay store `jti`s need. */
export function offersIdJag(context: ServerContext, tenant: Tenant): boolean {
  return tenant.enterpriseIssuers.length > 0 && context.storage.onceStore !== undefined;
}

/** Whether the tenant redeems workload JWTs: it has a trust policy and the server a replay store. */
function offersWorkloads(context: ServerContext, tenant: Tenant): boolean {
  return tenant.workloads.length > 0 && context.storage.onceStore !== undefined;
}

/** Whether the tenant offers (and advertises) the jwt-bearer grant: for ID-JAGs, workloads or both. */
export function offersJwtBearer(context: ServerContext, tenant: Tenant): boolean {
  return offersIdJag(context, tenant) || offersWorkloads(context, tenant);
}

/** The JOSE `typ` in its short form (RFC 7515 §4.1.9: `application/` may be omitted, case-insensitive). */
function typOf(header: { typ?: unknown }): string | undefined {
  return typeof header.typ === 'string' ? header.typ.toLowerCase().replace(/^application\//, '') : undefined;
}

/**
 * The jwt-bearer grant (RFC 7523 §2.1), one grant type with two pipelines chosen by the assertion's JOSE
 * `typ` (RFC 8725 §3.11): `oauth-id-jag+jwt` goes to enterprise-managed authorization (the tenant's
 * `enterpriseIssuers`); absent, `JWT` or `JOSE` to workload identity (the tenant's `workloads`); any other
 * `typ` (an access token, a DPoP proof, a logout token) is refused, and neither pipeline ever sees the
 * other's assertions. No refresh token either way: the caller presents a fresh assertion.
 */
export const jwtBearerGrant: Grant = async (input) => {
  const { context, tenant, params, event } = input;
  if (!offersJwtBearer(context, tenant)) {
    throw new OAuthError('unsupported_grant_type', 'this grant type is not supported');
  }
  const assertion = params.assertion;
  if (assertion === undefined || assertion === '') {
    throw refusal(event, 'jwt_bearer.assertion_missing', 'assertion is required', 'invalid_request');
  }
  let header: { typ?: unknown; alg?: unknown; kid?: unknown };
  try {
    header = decodeProtectedHeader(assertion);
    decodeJwt(assertion);
  } catch {
    throw refusal(event, 'jwt_bearer.malformed', 'assertion is not a signed JWT');
  }
  const typ = typOf(header);
  const read: ReadAssertion = {
    assertion,
    alg: typeof header.alg === 'string' ? header.alg : undefined,
    kid: typeof header.kid === 'string' ? header.kid : undefined,
  };
  if (typ === ID_JAG_TYP && offersIdJag(context, tenant)) return idJagPipeline(input, read);
  if (WORKLOAD_TYPS.has(typ) && offersWorkloads(context, tenant)) return workloadPipeline(input, read);
  const accepted = [
    ...(offersIdJag(context, tenant) ? [ID_JAG_TYP] : []),
    ...(offersWorkloads(context, tenant) ? ['JWT (or none)'] : []),
  ];
  throw refusal(event, 'jwt_bearer.typ_not_accepted', `the assertion typ must be ${accepted.join(' or ')}`);
};

/** What the dispatcher read from the assertion, unverified. */
interface ReadAssertion {
  readonly assertion: string;
  readonly alg: string | undefined;
  readonly kid: string | undefined;
}

/** The jwt-bearer opening: a confidential client registered for the grant (both pipelines). */
function authenticateJwtBearerClient(input: GrantInput): Promise<ResolvedClient> {
  return authenticateGrantClient(input, {
    grantType: JWT_BEARER_GRANT,
    name: 'the jwt-bearer grant',
    allowPublic: false,
    refusedReason: 'jwt_bearer.grant_not_allowed',
  });
}

/**
 * Enterprise-managed authorization: the client authenticates as a confidential client registered for the
 * grant. The issued token's `sub` is the local user, its scope the request ∩ the assertion ∩ the IdP's
 * ceiling, its audience the asserted resource.
 */
async function idJagPipeline(input: GrantInput, read: ReadAssertion): ReturnType<Grant> {
  const { context, tenant, params, event, proof } = input;
  const client = await authenticateJwtBearerClient(input);
  const { assertion } = read;
  const unverifiedIssuer = decodeJwt(assertion).iss;
  const requested = parseScope(params.scope);
  if (requested === undefined)
    throw refusal(event, 'id_jag.scope_malformed', 'scope is malformed', 'invalid_scope');
  let requestedResources: string[];
  try {
    requestedResources = parseResources(tenant, params.resource);
  } catch {
    throw refusal(event, 'id_jag.resource_mismatch', 'the requested resource is not one this server serves');
  }
  const verified = await verifyIdJag(context, tenant, {
    assertion,
    alg: read.alg,
    kid: read.kid,
    unverifiedIssuer: typeof unverifiedIssuer === 'string' ? unverifiedIssuer : undefined,
    clientId: client.clientId,
    proof,
    event,
  });
  // Resources: those asserted (each one of the tenant's), narrowed by the request; none asserted (Okta sends
  // none): what the request names, else the tenant default. The token is audience-restricted to them.
  let resources = requestedResources;
  if (verified.resources !== undefined) {
    const own = new Map(tenant.resources.map((resource) => [canonicalResource(resource), resource]));
    const asserted = verified.resources.map((resource) => own.get(resource));
    if (asserted.some((resource) => resource === undefined)) {
      throw refusal(
        event,
        'id_jag.resource_mismatch',
        'the assertion resource is not one this server serves',
      );
    }
    const allowed = asserted as string[];
    if (requestedResources.some((resource) => !allowed.includes(resource))) {
      throw refusal(event, 'id_jag.resource_mismatch', 'the requested resource is not in the assertion');
    }
    resources = requestedResources.length > 0 ? requestedResources : allowed;
  }
  // Scope: never more than the assertion or the IdP's ceiling; a request narrows it (EMA §7.2.1).
  const ceiling = verified.issuer.scopes;
  const grantable = (verified.scopes ?? ceiling).filter((scope) => ceiling.includes(scope));
  const granted = requested.length > 0 ? requested.filter((scope) => grantable.includes(scope)) : grantable;
  if (requested.length > 0 && granted.length === 0) {
    throw refusal(event, 'id_jag.scope_mismatch', 'none of the requested scopes is granted by the assertion');
  }
  const scope = formatScope(granted);
  await spendIdJag(context, tenant, verified, event);
  const grantId = await openGrant(context, tenant, {
    userId: verified.userId,
    clientId: client.clientId,
    clientType: client.clientType,
    kind: 'id_jag',
    scope,
    resources,
    offlineAccess: false,
  });
  return issueTokens(context, tenant, {
    grantId,
    clientId: client.clientId,
    clientType: client.clientType,
    subject: verified.userId,
    scope,
    resources,
    audience: audienceFor(tenant, resources),
    refresh: false,
    ...(proof === undefined ? {} : { jkt: proof.jkt }),
  });
}

/**
 * Whether the request carries client credentials: a bare `client_id` does not count (RFC 7523 §2.1 needs
 * no client, and workload SDKs send their own id, unknown here), a secret, an assertion or a Basic header do.
 */
function presentsClientCredentials(request: GrantInput['request'], params: GrantInput['params']): boolean {
  return (
    request.headers['authorization'] !== undefined ||
    params.client_secret !== undefined ||
    params.client_assertion !== undefined
  );
}

/**
 * Workload identity: no client needed (RFC 7523 §2.1). A client that does present credentials is
 * authenticated (a wrong secret is `invalid_client`, never silently ignored), must be registered for the
 * grant, and becomes the token's `client_id`; otherwise it is the policy's `clientId`. The token's `sub` is
 * `workload:<sub>` (or `workload:<principal>`), a machine subject: only resources that allow machine
 * subjects accept it. Scope is the request within the policy's ceiling (the whole ceiling when none is
 * asked); resources the request's within the policy's.
 */
async function workloadPipeline(input: GrantInput, read: ReadAssertion): ReturnType<Grant> {
  const { context, tenant, request, params, event, proof } = input;
  let client: { clientId: string; clientType: ClientType } | undefined;
  if (presentsClientCredentials(request, params)) {
    client = await authenticateJwtBearerClient(input);
  }
  const requested = parseScope(params.scope);
  if (requested === undefined) {
    throw refusal(event, 'workload.scope_not_allowed', 'scope is malformed', 'invalid_scope');
  }
  let requestedResources: string[];
  try {
    requestedResources = parseResources(tenant, params.resource);
  } catch (error) {
    throw refusal(
      event,
      'workload.resource_not_allowed',
      error instanceof OAuthError ? error.message : 'the requested resource is not one this server serves',
      'invalid_target',
    );
  }
  const verified = await verifyWorkload(context, tenant, { ...read, proof, event });
  const { policy } = verified;
  const allowed =
    policy.resources === undefined
      ? tenant.resources
      : tenant.resources.filter((resource) => policy.resources?.includes(canonicalResource(resource) ?? ''));
  if (requestedResources.some((resource) => !allowed.includes(resource))) {
    throw refusal(
      event,
      'workload.resource_not_allowed',
      'the trust policy does not allow this workload the requested resource',
      'invalid_target',
    );
  }
  if (allowed.length === 0) {
    throw refusal(
      event,
      'workload.resource_not_allowed',
      "the trust policy allows none of this server's resources",
      'invalid_target',
    );
  }
  // None asked: the tenant's default when the policy allows every resource, else all the policy allows.
  const resources =
    requestedResources.length > 0 ? requestedResources : policy.resources === undefined ? [] : allowed;
  const outside = requested.filter((scope) => !policy.scopes.includes(scope));
  if (outside.length > 0) {
    throw refusal(
      event,
      'workload.scope_not_allowed',
      'the requested scope exceeds what the trust policy allows this workload',
      'invalid_scope',
    );
  }
  const scope = formatScope(requested.length > 0 ? requested : [...policy.scopes]);
  await spendWorkload(context, tenant, verified, event);
  const subject = `${WORKLOAD_SUBJECT_PREFIX}${policy.principal ?? verified.sub}`;
  const clientId = client?.clientId ?? policy.clientId;
  const clientType: ClientType = client?.clientType ?? 'registered';
  const grantId = await openGrant(context, tenant, {
    userId: subject,
    clientId,
    clientType,
    kind: 'workload',
    scope,
    resources,
    offlineAccess: false,
  });
  return issueTokens(context, tenant, {
    grantId,
    clientId,
    clientType,
    subject,
    scope,
    resources,
    audience: audienceFor(tenant, resources),
    refresh: false,
    ...(proof === undefined ? {} : { jkt: proof.jkt }),
  });
}
