import { decodeJwt, decodeProtectedHeader } from 'jose';
import { authenticateClient } from '../client-authentication.js';
import { requireProofOfBoundClient } from '../dpop/token-endpoint.js';
import { OAuthError } from '../errors.js';
import { openGrant } from '../grant-records.js';
import { ID_JAG_TYP, spendIdJag, verifyIdJag } from '../jwt-bearer/id-jag.js';
import { refusal } from '../jwt-bearer/refusal.js';
import type { ServerContext } from '../options.js';
import { audienceFor, canonicalResource, parseResources } from '../resources.js';
import { formatScope, parseScope } from '../scopes.js';
import type { Tenant } from '../tenant.js';
import type { Grant } from './grant.js';
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

/**
 * The jwt-bearer grant (RFC 7523), routed by the assertion's JOSE `typ`: `oauth-id-jag+jwt` to
 * enterprise-managed authorization (the tenant's `enterpriseIssuers`); any other `typ` is refused, so an
 * assertion made for another purpose (an access token, a DPoP proof, a logout token) is never a grant.
 * The client authenticates as a confidential client registered for the grant. The issued token's `sub` is the
 * local user, its scope the request ∩ the assertion ∩ the IdP's ceiling, its audience the asserted resource;
 * no refresh token (ID-JAG §4.4.3): the client re-presents a fresh ID-JAG.
 */
export const jwtBearerGrant: Grant = async ({ context, tenant, request, params, event, proof }) => {
  if (!offersIdJag(context, tenant)) {
    throw new OAuthError('unsupported_grant_type', 'this grant type is not supported');
  }
  const { client } = await authenticateClient(context, tenant, request, params, {
    allowPublic: false,
    renew: true,
    // Before the credentials: a refused request spends no client assertion (RFC 9449 §5.2 retry).
    beforeCredentials: (named) => requireProofOfBoundClient(named, proof, event),
  });
  event.client_type = client.clientType;
  if (!client.grantTypes.includes(JWT_BEARER_GRANT)) {
    throw refusal(
      event,
      'jwt_bearer.grant_not_allowed',
      'the client may not use the jwt-bearer grant',
      'unauthorized_client',
    );
  }
  const assertion = params.assertion;
  if (assertion === undefined || assertion === '') {
    throw refusal(event, 'jwt_bearer.assertion_missing', 'assertion is required', 'invalid_request');
  }
  let header: { typ?: unknown; alg?: unknown; kid?: unknown };
  let unverifiedIssuer: unknown;
  try {
    header = decodeProtectedHeader(assertion);
    unverifiedIssuer = decodeJwt(assertion).iss;
  } catch {
    throw refusal(event, 'jwt_bearer.malformed', 'assertion is not a signed JWT');
  }
  const typ =
    typeof header.typ === 'string' ? header.typ.toLowerCase().replace(/^application\//, '') : undefined;
  if (typ !== ID_JAG_TYP) {
    throw refusal(event, 'jwt_bearer.typ_not_accepted', `the assertion typ must be ${ID_JAG_TYP}`);
  }
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
    alg: typeof header.alg === 'string' ? header.alg : undefined,
    kid: typeof header.kid === 'string' ? header.kid : undefined,
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
};
