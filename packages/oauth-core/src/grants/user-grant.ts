import type { ResolvedClient } from '../clients.js';
import type { GrantOpening } from '../grant-records.js';
import type { IssueInput } from './issue-tokens.js';

/** What a user's authorization carries from an authorization code to its refresh tokens. */
export interface UserAuthorization {
  readonly userId: string;
  readonly scope: string;
  readonly resources: readonly string[];
}

/**
 * The grant record of a user's authorization for a client: opened by the authorization code, kept (and
 * reopened when missing) by its refresh tokens, so both describe it alike.
 */
export function userGrantOpening(
  client: ResolvedClient,
  authorization: UserAuthorization,
  offlineAccess: boolean,
): Omit<GrantOpening, 'grantId'> {
  return {
    userId: authorization.userId,
    clientId: client.clientId,
    clientType: client.clientType,
    kind: 'authorization_code',
    scope: authorization.scope,
    resources: authorization.resources,
    offlineAccess,
  };
}

/** The tokens' part both grants of a user's authorization share: its grant, client, user, scope, resources. */
export function userTokens(
  client: ResolvedClient,
  authorization: UserAuthorization,
  grantId: string,
): Pick<IssueInput, 'grantId' | 'clientId' | 'clientType' | 'subject' | 'scope' | 'resources'> {
  return {
    grantId,
    clientId: client.clientId,
    clientType: client.clientType,
    subject: authorization.userId,
    scope: authorization.scope,
    resources: authorization.resources,
  };
}
