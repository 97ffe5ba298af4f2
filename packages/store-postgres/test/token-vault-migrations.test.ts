import { describe, expect, it } from 'vitest';
import { migratePostgres } from '../src/migrations.js';
import { TOKEN_VAULT_POSTGRES_MIGRATIONS } from '../src/token-vault-schema.js';
import { createPostgresGrantStore, createPostgresTokenVaultPendingStore } from '../src/token-vault-store.js';
import { requirePostgres, useIsolatedPool } from './postgres.js';

const available = await requirePostgres();

describe.skipIf(!available)(
  'token_vault migration 2: photon_id becomes tool_module_id, session_id goes, existing rows survive',
  () => {
    const db = useIsolatedPool();

    it('a grant and an elicitation written under schema version 1 read back under the new names', async () => {
      await migratePostgres(db.pool, 'token_vault', TOKEN_VAULT_POSTGRES_MIGRATIONS.slice(0, 1));
      await db.pool.query(
        `INSERT INTO keyhold_vault_grants (tenant_id, user_id, photon_id, provider, scopes, status,
          access_token_encrypted, refresh_token_encrypted, token_expires_at, granted_scopes, created_at,
          updated_at, version) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
        [
          'tenant-a',
          'user-1',
          'module-1',
          'github',
          'read repo',
          'valid',
          'v1.k1.sealed',
          'v1.k1.refresh',
          5000,
          ['read', 'repo'],
          1000,
          2000,
          3,
        ],
      );
      await db.pool.query(
        `INSERT INTO keyhold_vault_elicitations (elicitation_id, tenant_id, user_id, photon_id, provider,
          scopes, session_id, message, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
        [
          'e1',
          'tenant-a',
          'user-1',
          'module-1',
          'github',
          ['read'],
          'session-1',
          'Connect GitHub',
          1000,
          9000,
        ],
      );

      const grants = await createPostgresGrantStore(db.pool);
      const pending = await createPostgresTokenVaultPendingStore(db.pool);
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
      expect(await pending.getElicitation('e1', 1500)).toEqual({
        elicitationId: 'e1',
        ...key,
        scopes: ['read'],
        message: 'Connect GitHub',
        createdAt: 1000,
        expiresAt: 9000,
      });
      const { rows } = await db.pool.query<{ table_name: string; column_name: string }>(
        `SELECT table_name, column_name FROM information_schema.columns
          WHERE table_schema = current_schema() AND table_name LIKE 'keyhold_vault_%'`,
      );
      const names = rows.map((r) => r.column_name);
      expect(names.filter((n) => n === 'tool_module_id')).toHaveLength(3);
      expect(names).not.toContain('photon_id');
      expect(names).not.toContain('session_id');
      // The primary key follows the renamed column: writing the same key again is an update.
      const { rows: keyColumns } = await db.pool.query<{ attname: string }>(
        `SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
          WHERE i.indrelid = 'keyhold_vault_grants'::regclass AND i.indisprimary`,
      );
      expect(keyColumns.map((c) => c.attname)).toContain('tool_module_id');
      const { version: _version, ...written } = (await grants.get({ ...key, scopes: ['read', 'repo'] }))!;
      expect((await grants.put({ ...written, updatedAt: 3000 })).version).toBe(4);
      expect(await grants.list({ tenantId: 'tenant-a' })).toHaveLength(1);
    });
  },
);
