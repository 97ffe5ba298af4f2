import type {
  ElicitationRecord,
  Grant,
  PendingAuthorization,
  StoredGrant,
} from '@keyhold/token-vault/storage';
import type { ColumnReader, Row } from './column-reader.js';
import { splitScopes, withOptional } from './column-reader.js';

/** Row → record for every table of the `token_vault` schema, in either dialect. */
export interface TokenVaultRowMappers {
  grant(row: Row): StoredGrant;
  elicitation(row: Row): ElicitationRecord;
  pendingAuthorization(row: Row): PendingAuthorization;
}

/**
 * The `token_vault` schema's row mappers over one dialect's {@link ColumnReader}. A grant's `scopes` is
 * space-joined TEXT in both dialects (it is part of the key); `granted_scopes` and the pending records'
 * `scopes` are the dialect's string array.
 *
 * @example
 * ```ts
 * const rows = createTokenVaultRowMappers(postgresColumns);
 * const grants = (await pool.query('SELECT … FROM keyhold_vault_grants')).rows.map(rows.grant);
 * ```
 */
export function createTokenVaultRowMappers(c: ColumnReader): TokenVaultRowMappers {
  return {
    grant: (row) =>
      withOptional<StoredGrant>(
        {
          tenantId: c.text(row, 'tenant_id'),
          userId: c.text(row, 'user_id'),
          toolModuleId: c.text(row, 'tool_module_id'),
          provider: c.text(row, 'provider'),
          scopes: splitScopes(c.text(row, 'scopes')),
          status: c.text(row, 'status') as Grant['status'],
          accessTokenEncrypted: c.text(row, 'access_token_encrypted'),
          createdAt: c.integer(row, 'created_at'),
          updatedAt: c.integer(row, 'updated_at'),
          version: c.integer(row, 'version'),
        },
        {
          refreshTokenEncrypted: c.optionalText(row, 'refresh_token_encrypted'),
          tokenExpiresAt: c.optionalInteger(row, 'token_expires_at'),
          grantedScopes: c.optionalStringArray(row, 'granted_scopes'),
        },
      ),
    elicitation: (row) => ({
      elicitationId: c.text(row, 'elicitation_id'),
      tenantId: c.text(row, 'tenant_id'),
      userId: c.text(row, 'user_id'),
      toolModuleId: c.text(row, 'tool_module_id'),
      provider: c.text(row, 'provider'),
      scopes: c.stringArray(row, 'scopes'),
      message: c.text(row, 'message'),
      createdAt: c.integer(row, 'created_at'),
      expiresAt: c.integer(row, 'expires_at'),
    }),
    pendingAuthorization: (row) => ({
      nonceHash: c.text(row, 'nonce_hash'),
      elicitationId: c.text(row, 'elicitation_id'),
      tenantId: c.text(row, 'tenant_id'),
      userId: c.text(row, 'user_id'),
      toolModuleId: c.text(row, 'tool_module_id'),
      provider: c.text(row, 'provider'),
      scopes: c.stringArray(row, 'scopes'),
      codeVerifier: c.text(row, 'code_verifier'),
      createdAt: c.integer(row, 'created_at'),
      expiresAt: c.integer(row, 'expires_at'),
    }),
  };
}
