import { type TableShape, tableShape } from './row-writer.js';

const tenantColumn = 'tenant';

/**
 * The `oauth` schema's tables as records are written to them: one column list per table for both dialects.
 * Rows read back through {@link createOAuthRowMappers}.
 *
 * @example
 * ```ts
 * const writer = createRowWriter({ placeholder: () => '?', stringArray: (value) => JSON.stringify(value) });
 * const saveConsent = db.prepare(writer.insert(OAUTH_TABLE_SHAPES.consent, { onConflict: 'update' }));
 * saveConsent.run(...writer.values(OAUTH_TABLE_SHAPES.consent, consent, tenant));
 * ```
 */
export const OAUTH_TABLE_SHAPES: {
  readonly client: TableShape;
  readonly authorizationCode: TableShape;
  readonly pendingAuthorization: TableShape;
  readonly refreshToken: TableShape;
  readonly consent: TableShape;
  readonly loginTransaction: TableShape;
  readonly grant: TableShape;
  readonly clientBlock: TableShape;
} = {
  client: tableShape(
    'keyhold_oauth_clients',
    ['tenant', 'client_id'],
    [
      'client_id',
      'client_name',
      'redirect_uris',
      'grant_types',
      'response_types',
      'token_endpoint_auth_method',
      'client_secret_hash',
      'scope',
      'client_uri',
      'logo_uri',
      'created_at',
      'registration',
      'expires_at',
      'token_exchange_audiences',
      'jwks_uri',
      // JSON text in both dialects: a key set is read whole, never queried into.
      'jwks',
      'token_endpoint_auth_signing_alg',
      'application_type',
      'dpop_bound_access_tokens',
    ],
    {
      tenantColumn,
      kinds: {
        redirect_uris: 'stringArray',
        grant_types: 'stringArray',
        response_types: 'stringArray',
        token_exchange_audiences: 'stringArray',
        jwks: 'json',
        dpop_bound_access_tokens: 'json',
      },
    },
  ),
  authorizationCode: tableShape(
    'keyhold_oauth_codes',
    ['tenant', 'code_hash'],
    [
      'code_hash',
      'client_id',
      'client_type',
      'user_id',
      'redirect_uri',
      'code_challenge',
      'scope',
      'resources',
      'nonce',
      'auth_time',
      'expires_at',
      'family_id',
      'access_token_jti',
      'consumed_at',
      'dpop_jkt',
    ],
    { tenantColumn, kinds: { resources: 'stringArray' } },
  ),
  pendingAuthorization: tableShape(
    'keyhold_oauth_pending',
    ['tenant', 'id'],
    [
      'id',
      'user_id',
      'client_id',
      'client_type',
      'client_name',
      'client_host',
      'redirect_uri',
      'code_challenge',
      'scope',
      'resources',
      'state',
      'nonce',
      'expires_at',
      'dpop_jkt',
    ],
    { tenantColumn, kinds: { resources: 'stringArray' } },
  ),
  refreshToken: tableShape(
    'keyhold_oauth_refresh_tokens',
    ['tenant', 'token_hash'],
    [
      'token_hash',
      'family_id',
      'client_id',
      'client_type',
      'user_id',
      'scope',
      'resources',
      'created_at',
      'expires_at',
      'consumed_at',
      'revoked_at',
      'sealed_successor',
      'jkt',
    ],
    { tenantColumn, kinds: { resources: 'stringArray' } },
  ),
  consent: tableShape(
    'keyhold_oauth_consents',
    ['tenant', 'user_id', 'client_id', 'scopes'],
    ['user_id', 'client_id', 'scopes', 'granted_at', 'expires_at'],
    { tenantColumn, kinds: { scopes: 'joinedScopes' } },
  ),
  grant: tableShape(
    'keyhold_oauth_grants',
    ['tenant', 'grant_id'],
    [
      'grant_id',
      'user_id',
      'client_id',
      'client_type',
      'kind',
      'scopes',
      'resources',
      'offline_access',
      'created_at',
      'last_used_at',
      'revoked_at',
      'revoked_reason',
      'expires_at',
    ],
    { tenantColumn, kinds: { scopes: 'joinedScopes', resources: 'stringArray', offline_access: 'flag' } },
  ),
  clientBlock: tableShape(
    'keyhold_oauth_client_blocks',
    ['tenant', 'client_id'],
    ['client_id', 'blocked_at'],
    {
      tenantColumn,
    },
  ),
  loginTransaction: tableShape(
    'keyhold_oauth_login_transactions',
    ['id'],
    ['id', 'provider_id', 'code_verifier', 'nonce', 'return_to', 'expires_at'],
  ),
};

/** Which columns a grant or event filter names: each shape has its own statement, so each uses its index. */
export type FilterShape = 'user' | 'client' | 'both' | 'none';

/**
 * The shape of a grant or event filter (`userId` and/or `clientId` given).
 *
 * @example
 * ```ts
 * const rows = listGrants[filterShape({ userId: 'alice' })].all(tenant, 'alice', null);
 * ```
 */
export function filterShape(filter: {
  readonly userId?: string | undefined;
  readonly clientId?: string | undefined;
}): FilterShape {
  if (filter.userId !== undefined) return filter.clientId !== undefined ? 'both' : 'user';
  return filter.clientId !== undefined ? 'client' : 'none';
}
