import { OAuthError } from '../errors.js';
import { machineGrant } from '../grant-records.js';
import { audienceFor, parseResources } from '../resources.js';
import { formatScope, requestedScopes } from '../scopes.js';
import type { Grant } from './grant.js';
import { authenticateGrantClient } from './grant-client.js';
import { issueTokens } from './issue-tokens.js';

/**
 * The client_credentials grant (RFC 6749 §4.4): a confidential client acting for itself. The token's
 * subject is `client:<client_id>`; no refresh token is issued; the scope stays within the registered one.
 */
export const clientCredentialsGrant: Grant = async (input) => {
  const { context, tenant, params, event, proof } = input;
  const client = await authenticateGrantClient(input, {
    grantType: 'client_credentials',
    name: 'the client_credentials grant',
    allowPublic: false,
  });
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
