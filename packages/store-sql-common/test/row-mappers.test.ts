import { describe, expect, it } from 'vitest';
import { createClaimRowMapper } from '../src/claim-rows.js';
import { createColumnReader } from '../src/column-reader.js';
import { createOAuthRowMappers } from '../src/oauth-rows.js';
import { createTokenVaultRowMappers } from '../src/token-vault-rows.js';

// The same records, as each dialect's driver hands the rows back.
const sqlite = createColumnReader({ stringArray: (value) => JSON.parse(String(value)) as string[] });
const postgres = createColumnReader({ stringArray: (value) => [...(value as string[])] });

const clientColumns = {
  client_id: 'c1',
  redirect_uris: ['https://app.example/cb'],
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
  token_endpoint_auth_method: 'none',
  created_at: 1000,
  client_name: null,
  client_secret_hash: null,
  scope: 'read',
  client_uri: null,
  logo_uri: null,
};

describe('one mapper serves both encodings', () => {
  it('maps a SQLite client row and a PostgreSQL client row to the same record', () => {
    const sqliteRow = {
      ...clientColumns,
      redirect_uris: JSON.stringify(clientColumns.redirect_uris),
      grant_types: JSON.stringify(clientColumns.grant_types),
      response_types: JSON.stringify(clientColumns.response_types),
    };
    const postgresRow = { ...clientColumns, created_at: '1000' };
    const expected = {
      clientId: 'c1',
      redirectUris: ['https://app.example/cb'],
      grantTypes: ['authorization_code', 'refresh_token'],
      responseTypes: ['code'],
      tokenEndpointAuthMethod: 'none',
      createdAt: 1000,
      scope: 'read',
    };
    expect(createOAuthRowMappers(sqlite).client(sqliteRow)).toStrictEqual(expected);
    expect(createOAuthRowMappers(postgres).client(postgresRow)).toStrictEqual(expected);
  });
});

describe('NULL columns become absent optional fields', () => {
  it('omits a refresh token’s consumedAt and revokedAt until they are set', () => {
    const row = {
      token_hash: 'h',
      family_id: 'f',
      client_id: 'c',
      client_type: 'public',
      user_id: 'u',
      scope: 'read',
      resources: [],
      created_at: '1',
      expires_at: '2',
      consumed_at: null,
      revoked_at: '3',
    };
    const record = createOAuthRowMappers(postgres).refreshToken(row);
    expect(record).not.toHaveProperty('consumedAt');
    expect(record.revokedAt).toBe(3);
  });

  it('omits a grant’s optional fields when NULL and reads them when present', () => {
    const base = {
      tenant_id: 't',
      user_id: 'u',
      tool_module_id: 'p',
      provider: 'github',
      scopes: 'repo user',
      status: 'active',
      access_token_encrypted: 'enc',
      created_at: 1,
      updated_at: 2,
      version: 3,
    };
    const rows = createTokenVaultRowMappers(sqlite);
    const bare = rows.grant({
      ...base,
      refresh_token_encrypted: null,
      token_expires_at: null,
      granted_scopes: null,
    });
    expect(bare).toStrictEqual({
      tenantId: 't',
      userId: 'u',
      toolModuleId: 'p',
      provider: 'github',
      scopes: ['repo', 'user'],
      status: 'active',
      accessTokenEncrypted: 'enc',
      createdAt: 1,
      updatedAt: 2,
      version: 3,
    });
    const full = rows.grant({
      ...base,
      refresh_token_encrypted: 'renc',
      token_expires_at: 99,
      granted_scopes: '["repo"]',
    });
    expect(full).toMatchObject({
      refreshTokenEncrypted: 'renc',
      tokenExpiresAt: 99,
      grantedScopes: ['repo'],
    });
  });

  it('omits a claim’s label when NULL', () => {
    const toClaim = createClaimRowMapper(postgres);
    const row = { code: 'k', scope_dir: '/s', created_at: '1', expires_at: '2', label: null };
    expect(toClaim(row)).toStrictEqual({ code: 'k', scopeDir: '/s', createdAt: 1, expiresAt: 2 });
    expect(toClaim({ ...row, label: 'laptop' }).label).toBe('laptop');
  });
});

describe('consents store their scopes space-joined in both dialects', () => {
  it('reads an empty scopes column as no scopes', () => {
    const consent = createOAuthRowMappers(sqlite).consent({
      user_id: 'u',
      client_id: 'c',
      scopes: '',
      granted_at: 1,
      expires_at: 2,
    });
    expect(consent.scopes).toEqual([]);
  });
});

describe('mappers are detached functions', () => {
  it('can be handed to Array.prototype.map', () => {
    const rows = [
      { issuer: 'https://idp.example', subject: 's1' },
      { issuer: 'https://idp.example', subject: 's2' },
    ];
    expect(rows.map(createOAuthRowMappers(postgres).federatedIdentity)).toStrictEqual(rows);
  });
});

describe('client expiry and policy columns (oauth migration 3)', () => {
  it('maps registration, expires_at and token_exchange_audiences in both encodings', () => {
    const columns = {
      ...clientColumns,
      registration: 'provisioned',
      expires_at: null,
      token_exchange_audiences: ['https://a.example', 'svc'],
    };
    const expected = {
      clientId: 'c1',
      redirectUris: ['https://app.example/cb'],
      grantTypes: ['authorization_code', 'refresh_token'],
      responseTypes: ['code'],
      tokenEndpointAuthMethod: 'none',
      createdAt: 1000,
      scope: 'read',
      registration: 'provisioned',
      tokenExchangeAudiences: ['https://a.example', 'svc'],
    };
    const sqliteRow = {
      ...columns,
      redirect_uris: JSON.stringify(columns.redirect_uris),
      grant_types: JSON.stringify(columns.grant_types),
      response_types: JSON.stringify(columns.response_types),
      token_exchange_audiences: JSON.stringify(columns.token_exchange_audiences),
    };
    expect(createOAuthRowMappers(sqlite).client(sqliteRow)).toStrictEqual(expected);
    expect(createOAuthRowMappers(postgres).client({ ...columns, expires_at: null })).toStrictEqual(expected);
    expect(createOAuthRowMappers(postgres).client({ ...columns, expires_at: '5000' }).expiresAt).toBe(5000);
  });

  it('maps a code’s family_id, access_token_jti and consumed_at, omitting them when NULL', () => {
    const row = {
      code_hash: 'h',
      client_id: 'c',
      client_type: 'registered',
      user_id: 'u',
      redirect_uri: 'https://app.example/cb',
      code_challenge: 'x',
      scope: 'mcp',
      resources: [],
      nonce: null,
      auth_time: '1',
      expires_at: '2',
      family_id: null,
      access_token_jti: null,
      consumed_at: null,
    };
    const bare = createOAuthRowMappers(postgres).authorizationCode(row);
    expect('familyId' in bare || 'accessTokenJti' in bare || 'consumedAt' in bare).toBe(false);
    const full = createOAuthRowMappers(postgres).authorizationCode({
      ...row,
      family_id: 'f',
      access_token_jti: 'j',
      consumed_at: '3',
    });
    expect(full).toMatchObject({ familyId: 'f', accessTokenJti: 'j', consumedAt: 3 });
  });
});

describe('private_key_jwt and application_type columns (oauth migration 4)', () => {
  it('maps jwks_uri, jwks (JSON text in both dialects), the signing alg and application_type; NULL is absent', () => {
    const jwks = { keys: [{ kty: 'OKP', crv: 'Ed25519', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo' }] };
    const columns = {
      ...clientColumns,
      token_endpoint_auth_method: 'private_key_jwt',
      jwks_uri: null,
      jwks: JSON.stringify(jwks),
      token_endpoint_auth_signing_alg: 'EdDSA',
      application_type: 'native',
    };
    const expected = {
      clientId: 'c1',
      redirectUris: ['https://app.example/cb'],
      grantTypes: ['authorization_code', 'refresh_token'],
      responseTypes: ['code'],
      tokenEndpointAuthMethod: 'private_key_jwt',
      createdAt: 1000,
      scope: 'read',
      jwks,
      tokenEndpointAuthSigningAlg: 'EdDSA',
      applicationType: 'native',
    };
    const sqliteRow = {
      ...columns,
      redirect_uris: JSON.stringify(columns.redirect_uris),
      grant_types: JSON.stringify(columns.grant_types),
      response_types: JSON.stringify(columns.response_types),
    };
    expect(createOAuthRowMappers(sqlite).client(sqliteRow)).toStrictEqual(expected);
    expect(createOAuthRowMappers(postgres).client(columns)).toStrictEqual(expected);
    const byUri = createOAuthRowMappers(postgres).client({
      ...columns,
      jwks: null,
      jwks_uri: 'https://app.example/jwks.json',
      token_endpoint_auth_signing_alg: null,
      application_type: null,
    });
    expect(byUri.jwksUri).toBe('https://app.example/jwks.json');
    expect('jwks' in byUri || 'applicationType' in byUri || 'tokenEndpointAuthSigningAlg' in byUri).toBe(
      false,
    );
  });
});
