import type { HandlerRequest, HandlerResult } from '@keyhold/core';
import { mediaType, parseForm } from '@keyhold/internal';
import { tokenEndpointProof } from '../dpop/token-endpoint.js';
import { OAuthError } from '../errors.js';
import { authorizationCodeGrant } from '../grants/authorization-code.js';
import { clientCredentialsGrant } from '../grants/client-credentials.js';
import type { Grant } from '../grants/grant.js';
import { JWT_BEARER_GRANT, jwtBearerGrant, MAX_ASSERTION_LENGTH } from '../grants/jwt-bearer.js';
import { refreshTokenGrant } from '../grants/refresh-token.js';
import { TOKEN_EXCHANGE_GRANT, tokenExchangeGrant } from '../grants/token-exchange.js';
import type { ServerContext } from '../options.js';
import type { RequestEvent } from '../request-event.js';
import { noStoreJson } from '../responses.js';
import type { Tenant } from '../tenant.js';

const GRANTS: Readonly<Record<string, Grant>> = {
  authorization_code: authorizationCodeGrant,
  refresh_token: refreshTokenGrant,
  client_credentials: clientCredentialsGrant,
  [TOKEN_EXCHANGE_GRANT]: tokenExchangeGrant,
  [JWT_BEARER_GRANT]: jwtBearerGrant,
};

/**
 * The grant types every tenant's token endpoint serves, in the order they are advertised; jwt-bearer joins
 * them for a tenant that trusts an enterprise IdP or a workload issuer (see `offersJwtBearer`).
 */
export const SUPPORTED_GRANT_TYPES: readonly string[] = Object.keys(GRANTS).filter(
  (grant) => grant !== JWT_BEARER_GRANT,
);

/** The largest value of any one parameter; longer values are refused before any work is done. */
const MAX_PARAMETER_LENGTH = 8192;

/** POST /token (RFC 6749 §3.2). */
export async function tokenHandler(
  context: ServerContext,
  tenant: Tenant,
  request: HandlerRequest,
  event: RequestEvent,
): Promise<HandlerResult> {
  if (request.method !== 'POST')
    throw new OAuthError('invalid_request', 'the token endpoint accepts POST only', { status: 405 });
  if (mediaType(request.headers['content-type']) !== 'application/x-www-form-urlencoded') {
    throw new OAuthError('invalid_request', 'the body must be application/x-www-form-urlencoded');
  }
  const parsed = parseForm(request.body, { repeatable: ['resource', 'audience'] });
  if (!parsed.ok) throw new OAuthError('invalid_request', parsed.message);
  const params = parsed.params;
  for (const [name, value] of Object.entries(params)) {
    if (value.length > (name === 'assertion' ? MAX_ASSERTION_LENGTH : MAX_PARAMETER_LENGTH))
      throw new OAuthError('invalid_request', `parameter "${name}" is too long`);
  }
  const grantType = params.grant_type;
  if (grantType === undefined) throw new OAuthError('invalid_request', 'grant_type is required');
  if (!Object.hasOwn(GRANTS, grantType)) {
    throw new OAuthError('unsupported_grant_type', 'this grant type is not supported');
  }
  event.grant_type = grantType;
  const grant = GRANTS[grantType] as Grant;
  // Before the grant: a code or refresh token survives a bad proof or a nonce challenge (RFC 9449 §8).
  const proof = await tokenEndpointProof(context, tenant, request, event);
  const issued = await grant({ context, tenant, request, params, event, ...(proof ? { proof } : {}) });
  context.logger.debug(
    { event: 'token_issued', tenant: tenant.slug, grantType, clientType: event.client_type },
    'token issued',
  );
  return noStoreJson(200, issued);
}
