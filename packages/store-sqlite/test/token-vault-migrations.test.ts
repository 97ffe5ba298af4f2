import { describe, expect, it } from 'vitest';
import { migrateSqlite } from '../src/migrations.js';
import { TOKEN_VAULT_SQLITE_MIGRATIONS } from '../src/token-vault-schema.js';
import { createSqliteGrantStore, createSqliteTokenVaultPendingStore } from '../src/token-vault-store.js';
import { temporaryDatabases } from './temp-database.js';

const databases = temporaryDatabases();

describe('token_vault migration 2: photon_id becomes tool_module_id, session_id goes, existing rows survive', () => {
  it('a grant and an elicitation written under schema version 1 read back under the new names', async () => {
    const db = databases.file();
    migrateSqlite(db, 'token_vault', TOKEN_VAULT_SQLITE_MIGRATIONS.slice(0, 1));
    db.prepare(
      `INSERT INTO keyhold_vault_grants (tenant_id, user_id, photon_id, provider, scopes, status,
        access_token_encrypted, refresh_token_encrypted, token_expires_at, granted_scopes, created_at,
        updated_at, version) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      'tenant-a',
      'user-1',
      'module-1',
      'github',
      'read repo',
      'valid',
      'v1.k1.sealed',
      'v1.k1.refresh',
      5000,
      '["read","repo"]',
      1000,
      2000,
      3,
    );
    db.prepare(
      `INSERT INTO keyhold_vault_elicitations (elicitation_id, tenant_id, user_id, photon_id, provider, scopes,
        session_id, message, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      'e1',
      'tenant-a',
      'user-1',
      'module-1',
      'github',
      '["read"]',
      'session-1',
      'Connect GitHub',
      1000,
      9000,
    );

    const grants = createSqliteGrantStore(db);
    const pending = createSqliteTokenVaultPendingStore(db);
    const key = { tenantId: 'tenant-a', userId: 'user-1', toolModuleId: 'module-1', provider: 'github' };
    expect(await grants.get({ ...key, scopes: ['read', 'repo'] })).toEqual({
      ...key,
      scopes: ['read', 'repo'],
      status: 'valid',
      accessTokenEncrypted: 'v1.k1.sealed',
      refreshTokenEncrypted: 'v1.k1.refresh',
      tokenExpiresAt: 5000,
      grantedScopes: ['read', 'repo'],
      createdAt: 1000,
      updatedAt: 2000,
      version: 3,
    });
    expect(await grants.list({ tenantId: 'tenant-a' })).toHaveLength(1);
    expect(await pending.getElicitation('e1', 1500)).toEqual({
      elicitationId: 'e1',
      ...key,
      scopes: ['read'],
      message: 'Connect GitHub',
      createdAt: 1000,
      expiresAt: 9000,
    });
    const columns = (table: string) =>
      (db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).map((c) => c.name);
    for (const table of [
      'keyhold_vault_grants',
      'keyhold_vault_elicitations',
      'keyhold_vault_pending_authorizations',
    ]) {
      expect(columns(table)).toContain('tool_module_id');
      expect(columns(table)).not.toContain('photon_id');
      expect(columns(table)).not.toContain('session_id');
    }
    // The primary key still covers the renamed column: a second grant for the same key is an update.
    const { version: _version, ...written } = (await grants.get({ ...key, scopes: ['read', 'repo'] }))!;
    expect((await grants.put({ ...written, updatedAt: 3000 })).version).toBe(4);
    expect(await grants.list({ tenantId: 'tenant-a' })).toHaveLength(1);
  });
});
