import { authenticateClient, vouchedFor } from '../client-authentication.js';
import { requireProofOfBoundClient } from '../dpop/token-endpoint.js';
import { OAuthError } from '../errors.js';
import { machineGrant } from '../grant-records.js';
import { audienceFor, parseResources } from '../resources.js';
import { formatScope, requestedScopes } from '../scopes.js';
import type { Grant } from './grant.js';
import { issueTokens } from './issue-tokens.js';

/**
 * The client_credentials grant (RFC 6749 §4.4): a confidential client acting for itself. The token's
 * subject is `client:<client_id>`; no refresh token is issued; the scope stays within the registered one.
 */
export const clientCredentialsGrant: Grant = async ({ context, tenant, request, params, event, proof }) => {
  const { client, method } = await authenticateClient(context, tenant, request, params, {
    allowPublic: false,
    renew: true,
    // Before the credentials: a refused request spends no client assertion (RFC 9449 §5.2 retry).
    beforeCredentials: (named) => requireProofOfBoundClient(named, proof, event),
  });
  event.client_type = client.clientType;
  event.client_authenticated = vouchedFor(client, method);
  event.client_id = client.clientId;
  if (!client.grantTypes.includes('client_credentials')) {
    throw new OAuthError('unauthorized_client', 'the client may not use the client_credentials grant');
  }
  // A client without a registered scope gets no scope: client_credentials grants only what was registered.
  const scopes = requestedScopes(params.scope, tenant.scopesSupported, client.scopes ?? []);
  if ('error' in scopes) throw new OAuthError('invalid_scope', scopes.error);
  const resources = parseResources(tenant, params.resource);
  const scope = formatScope(scopes);
  const grantId = await machineGrant(context, tenant, client.clientId, client.clientType, scope);
  event.grant_id = grantId;
  return issueTokens(context, tenant, {
    grantId,
    clientId: client.clientId,
    clientType: client.clientType,
    subject: `client:${client.clientId}`,
    scope,
    resources,
    audience: audienceFor(tenant, resources),
    refresh: false,
    ...(proof === undefined ? {} : { jkt: proof.jkt }),
  });
};
