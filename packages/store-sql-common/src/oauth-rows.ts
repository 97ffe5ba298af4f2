import type { ClientJwks, ClientRecord, GrantRecord, TokenEndpointAuthMethod } from '@keyhold/oauth-core';
import type { FederatedIdentity, LoginTransaction } from '@keyhold/oauth-core/federated';
import type {
  ApplicationType,
  AuthorizationCodeRecord,
  ClientBlockRecord,
  ClientRegistration,
  ClientType,
  ConsentRecord,
  PendingAuthorizationRecord,
  RefreshTokenRecord,
} from '@keyhold/oauth-core/storage';
import type { ColumnReader, Row } from './column-reader.js';
import { splitScopes, withOptional } from './column-reader.js';

function parseJwks(text: string | undefined): ClientJwks | undefined {
  return text === undefined ? undefined : (JSON.parse(text) as ClientJwks);
}

/** Row → record for every table of the `oauth` schema, in either dialect. */
export interface OAuthRowMappers {
  client(row: Row): ClientRecord;
  authorizationCode(row: Row): AuthorizationCodeRecord;
  pendingAuthorization(row: Row): PendingAuthorizationRecord;
  refreshToken(row: Row): RefreshTokenRecord;
  consent(row: Row): ConsentRecord;
  grant(row: Row): GrantRecord;
  clientBlock(row: Row): ClientBlockRecord;
  loginTransaction(row: Row): LoginTransaction;
  federatedIdentity(row: Row): FederatedIdentity;
}

/**
 * The `oauth` schema's row mappers over one dialect's {@link ColumnReader}. NULL columns become absent
 * optional fields. The functions do not use `this`, so they can be passed to `Array.prototype.map`.
 *
 * @example
 * ```ts
 * const rows = createOAuthRowMappers(sqliteColumns);
 * const client = rows.client(db.prepare('SELECT * FROM keyhold_oauth_clients').get() as Row);
 * ```
 */
export function createOAuthRowMappers(c: ColumnReader): OAuthRowMappers {
  return {
    client: (row) =>
      withOptional<ClientRecord>(
        {
          clientId: c.text(row, 'client_id'),
          redirectUris: c.stringArray(row, 'redirect_uris'),
          grantTypes: c.stringArray(row, 'grant_types'),
          responseTypes: c.stringArray(row, 'response_types'),
          tokenEndpointAuthMethod: c.text(row, 'token_endpoint_auth_method') as TokenEndpointAuthMethod,
          createdAt: c.integer(row, 'created_at'),
        },
        {
          clientName: c.optionalText(row, 'client_name'),
          clientSecretHash: c.optionalText(row, 'client_secret_hash'),
          scope: c.optionalText(row, 'scope'),
          clientUri: c.optionalText(row, 'client_uri'),
          logoUri: c.optionalText(row, 'logo_uri'),
          registration: c.optionalText(row, 'registration') as ClientRegistration | undefined,
          expiresAt: c.optionalInteger(row, 'expires_at'),
          tokenExchangeAudiences: c.optionalStringArray(row, 'token_exchange_audiences'),
          jwksUri: c.optionalText(row, 'jwks_uri'),
          // JSON text in both dialects: a key set is read whole, never queried into.
          jwks: parseJwks(c.optionalText(row, 'jwks')),
          tokenEndpointAuthSigningAlg: c.optionalText(row, 'token_endpoint_auth_signing_alg'),
          applicationType: c.optionalText(row, 'application_type') as ApplicationType | undefined,
          dpopBoundAccessTokens:
            c.optionalText(row, 'dpop_bound_access_tokens') === 'true' ? true : undefined,
        },
      ),
    authorizationCode: (row) =>
      withOptional<AuthorizationCodeRecord>(
        {
          codeHash: c.text(row, 'code_hash'),
          clientId: c.text(row, 'client_id'),
          clientType: c.text(row, 'client_type') as ClientType,
          userId: c.text(row, 'user_id'),
          redirectUri: c.text(row, 'redirect_uri'),
          codeChallenge: c.text(row, 'code_challenge'),
          scope: c.text(row, 'scope'),
          resources: c.stringArray(row, 'resources'),
          authTime: c.integer(row, 'auth_time'),
          expiresAt: c.integer(row, 'expires_at'),
        },
        {
          nonce: c.optionalText(row, 'nonce'),
          familyId: c.optionalText(row, 'family_id'),
          accessTokenJti: c.optionalText(row, 'access_token_jti'),
          consumedAt: c.optionalInteger(row, 'consumed_at'),
          dpopJkt: c.optionalText(row, 'dpop_jkt'),
        },
      ),
    pendingAuthorization: (row) =>
      withOptional<PendingAuthorizationRecord>(
        {
          id: c.text(row, 'id'),
          userId: c.text(row, 'user_id'),
          clientId: c.text(row, 'client_id'),
          clientType: c.text(row, 'client_type') as ClientType,
          clientName: c.text(row, 'client_name'),
          clientHost: c.text(row, 'client_host'),
          redirectUri: c.text(row, 'redirect_uri'),
          codeChallenge: c.text(row, 'code_challenge'),
          scope: c.text(row, 'scope'),
          resources: c.stringArray(row, 'resources'),
          expiresAt: c.integer(row, 'expires_at'),
        },
        {
          state: c.optionalText(row, 'state'),
          nonce: c.optionalText(row, 'nonce'),
          dpopJkt: c.optionalText(row, 'dpop_jkt'),
        },
      ),
    refreshToken: (row) =>
      withOptional<RefreshTokenRecord>(
        {
          tokenHash: c.text(row, 'token_hash'),
          familyId: c.text(row, 'family_id'),
          clientId: c.text(row, 'client_id'),
          clientType: c.text(row, 'client_type') as ClientType,
          userId: c.text(row, 'user_id'),
          scope: c.text(row, 'scope'),
          resources: c.stringArray(row, 'resources'),
          createdAt: c.integer(row, 'created_at'),
          expiresAt: c.integer(row, 'expires_at'),
        },
        {
          consumedAt: c.optionalInteger(row, 'consumed_at'),
          revokedAt: c.optionalInteger(row, 'revoked_at'),
          sealedSuccessor: c.optionalText(row, 'sealed_successor'),
          jkt: c.optionalText(row, 'jkt'),
        },
      ),
    consent: (row) => ({
      userId: c.text(row, 'user_id'),
      clientId: c.text(row, 'client_id'),
      scopes: splitScopes(c.text(row, 'scopes')),
      grantedAt: c.integer(row, 'granted_at'),
      expiresAt: c.integer(row, 'expires_at'),
    }),
    grant: (row) =>
      withOptional<GrantRecord>(
        {
          grantId: c.text(row, 'grant_id'),
          userId: c.text(row, 'user_id'),
          clientId: c.text(row, 'client_id'),
          clientType: c.text(row, 'client_type') as ClientType,
          kind: c.text(row, 'kind') as GrantRecord['kind'],
          scopes: splitScopes(c.text(row, 'scopes')),
          resources: c.stringArray(row, 'resources'),
          offlineAccess: c.integer(row, 'offline_access') === 1,
          createdAt: c.integer(row, 'created_at'),
          lastUsedAt: c.integer(row, 'last_used_at'),
        },
        {
          revokedAt: c.optionalInteger(row, 'revoked_at'),
          revokedReason: c.optionalText(row, 'revoked_reason'),
          expiresAt: c.optionalInteger(row, 'expires_at'),
        },
      ),
    clientBlock: (row) => ({
      clientId: c.text(row, 'client_id'),
      blockedAt: c.integer(row, 'blocked_at'),
    }),
    loginTransaction: (row) =>
      withOptional<LoginTransaction>(
        {
          id: c.text(row, 'id'),
          providerId: c.text(row, 'provider_id'),
          codeVerifier: c.text(row, 'code_verifier'),
          nonce: c.text(row, 'nonce'),
          expiresAt: c.integer(row, 'expires_at'),
        },
        { returnTo: c.optionalText(row, 'return_to') },
      ),
    federatedIdentity: (row) => ({ issuer: c.text(row, 'issuer'), subject: c.text(row, 'subject') }),
  };
}
