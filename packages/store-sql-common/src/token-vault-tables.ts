import { type TableShape, tableShape } from './row-writer.js';

const grantKey = ['tenant_id', 'user_id', 'tool_module_id', 'provider', 'scopes'];

/**
 * The `token_vault` schema's tables as records are written to them: one column list per table for both
 * dialects. A grant's `version` is not a record field the store writes: `put` and `compareAndSwap` set it.
 *
 * @example
 * ```ts
 * const writer = createRowWriter({ placeholder: (n) => `$${n}`, stringArray: (value) => [...value] });
 * await pool.query(writer.insert(TOKEN_VAULT_TABLE_SHAPES.elicitation), writer.values(TOKEN_VAULT_TABLE_SHAPES.elicitation, record));
 * ```
 */
export const TOKEN_VAULT_TABLE_SHAPES: {
  readonly grant: TableShape;
  readonly elicitation: TableShape;
  readonly pendingAuthorization: TableShape;
} = {
  grant: tableShape(
    'keyhold_vault_grants',
    grantKey,
    [
      ...grantKey,
      'status',
      'access_token_encrypted',
      'refresh_token_encrypted',
      'token_expires_at',
      'granted_scopes',
      'created_at',
      'updated_at',
    ],
    // The scope set is part of the key, so it is stored as one comparable string.
    { kinds: { scopes: 'joinedScopes', granted_scopes: 'stringArray' } },
  ),
  elicitation: tableShape(
    'keyhold_vault_elicitations',
    ['elicitation_id'],
    [
      'elicitation_id',
      'tenant_id',
      'user_id',
      'tool_module_id',
      'provider',
      'scopes',
      'message',
      'created_at',
      'expires_at',
    ],
    { kinds: { scopes: 'stringArray' } },
  ),
  pendingAuthorization: tableShape(
    'keyhold_vault_pending_authorizations',
    ['nonce_hash'],
    [
      'nonce_hash',
      'elicitation_id',
      'tenant_id',
      'user_id',
      'tool_module_id',
      'provider',
      'scopes',
      'code_verifier',
      'created_at',
      'expires_at',
    ],
    { kinds: { scopes: 'stringArray' } },
  ),
};
