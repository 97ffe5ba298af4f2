import type { OAuthStorage } from '@keyhold/oauth-core';
import type { GrantStore, ProviderAuthorizationStore } from '@keyhold/token-vault/storage';
import { expect } from 'vitest';
import { type RowWriter, tableShape } from './row-writer.js';

/** Runs one statement with its values on the store's database, as the test's driver does. */
export type RunStatement = (sql: string, values: unknown[]) => unknown;

const key = { tenantId: 'tenant-a', userId: 'user-1', toolModuleId: 'module-1', provider: 'github' };

// The token_vault tables as schema version 1 had them (photon_id, session_id): frozen with that version.
const grantV1 = tableShape(
  'keyhold_vault_grants',
  [],
  [
    'tenant_id',
    'user_id',
    'photon_id',
    'provider',
    'scopes',
    'status',
    'access_token_encrypted',
    'refresh_token_encrypted',
    'token_expires_at',
    'granted_scopes',
    'created_at',
    'updated_at',
    'version',
  ],
  { kinds: { granted_scopes: 'stringArray' } },
);
const elicitationV1 = tableShape(
  'keyhold_vault_elicitations',
  [],
  [
    'elicitation_id',
    'tenant_id',
    'user_id',
    'photon_id',
    'provider',
    'scopes',
    'session_id',
    'message',
    'created_at',
    'expires_at',
  ],
  { kinds: { scopes: 'stringArray' } },
);

/** The state of the version-1 grant: written as version 1 stored it, read back unchanged after migration 2. */
const GRANT_V1_STATE = {
  status: 'valid',
  accessTokenEncrypted: 'v1.k1.sealed',
  refreshTokenEncrypted: 'v1.k1.refresh',
  tokenExpiresAt: 5000,
  grantedScopes: ['read', 'repo'],
  createdAt: 1000,
  updatedAt: 2000,
  version: 3,
} as const;

/**
 * Writes a grant and an elicitation the way token_vault schema version 1 stored them, for a test of
 * migration 2 (`photon_id` → `tool_module_id`, `session_id` dropped) in either dialect; read them back
 * with {@link expectTokenVaultV1RowsReadBack}.
 *
 * @example
 * ```ts
 * await writeTokenVaultV1Rows((sql, values) => db.prepare(sql).run(...values), sqliteWriter);
 * ```
 */
export async function writeTokenVaultV1Rows(run: RunStatement, writer: RowWriter): Promise<void> {
  const common = {
    tenantId: key.tenantId,
    userId: key.userId,
    photonId: key.toolModuleId,
    provider: key.provider,
  };
  await run(
    writer.insert(grantV1),
    writer.values(grantV1, {
      ...common,
      scopes: 'read repo',
      ...GRANT_V1_STATE,
    }),
  );
  const elicitation = {
    ...common,
    elicitationId: 'e1',
    scopes: ['read'],
    sessionId: 'session-1',
    message: 'Connect GitHub',
    createdAt: 1000,
    expiresAt: 9000,
  };
  await run(writer.insert(elicitationV1), writer.values(elicitationV1, elicitation));
}

/**
 * Checks that the rows {@link writeTokenVaultV1Rows} wrote read back under the new names, and that the
 * grants' primary key follows the renamed column (writing the same key again is an update).
 *
 * @example
 * ```ts
 * await expectTokenVaultV1RowsReadBack(createSqliteGrantStore(db), createSqliteTokenVaultPendingStore(db));
 * ```
 */
export async function expectTokenVaultV1RowsReadBack(
  grants: GrantStore,
  pending: ProviderAuthorizationStore,
): Promise<void> {
  const grant = await grants.get({ ...key, scopes: ['read', 'repo'] });
  expect(grant).toEqual({
    ...key,
    scopes: ['read', 'repo'],
    ...GRANT_V1_STATE,
  });
  expect(await pending.getElicitation('e1', 1500)).toEqual({
    elicitationId: 'e1',
    ...key,
    scopes: ['read'],
    message: 'Connect GitHub',
    createdAt: 1000,
    expiresAt: 9000,
  });
  const { version: _version, ...written } = grant!;
  expect((await grants.put({ ...written, updatedAt: 3000 })).version).toBe(4);
  expect(await grants.list({ tenantId: 'tenant-a' })).toHaveLength(1);
}

/**
 * Checks oauth migration 5 (refresh tokens keep a sealed successor) on tokens stored at version 4: `used`
 * (consumed at `now + 1`) reads back without a sealed successor, and `live` still rotates into a successor
 * of its family. The caller has inserted both into `keyhold_oauth_refresh_tokens` of tenant `t1` (family
 * `f`, client `c`, scope `mcp`).
 *
 * @example
 * ```ts
 * await expectVersion4RefreshTokensWork(createSqliteOAuthStorage(db), NOW);
 * ```
 */
export async function expectVersion4RefreshTokensWork(storage: OAuthStorage, now: number): Promise<void> {
  const used = await storage.refreshTokens.get('t1', 'used');
  expect(used?.consumedAt).toBe(now + 1);
  expect(used && 'sealedSuccessor' in used).toBe(false);
  const rotation = {
    tokenHash: 'live',
    clientId: 'c',
    now: now + 2,
    successorHash: 'next',
    successorExpiresAt: now + 9,
  };
  expect((await storage.refreshTokens.rotate('t1', rotation)).ok).toBe(true);
  expect(await storage.refreshTokens.get('t1', 'next')).toMatchObject({
    familyId: 'f',
    scope: 'mcp',
    expiresAt: now + 9,
  });
}
