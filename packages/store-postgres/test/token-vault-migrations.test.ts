import { expectTokenVaultV1RowsReadBack, writeTokenVaultV1Rows } from '@keyhold/store-sql-common/testing';
import { describe, expect, it } from 'vitest';
import { migratePostgres } from '../src/migrations.js';
import { postgresWriter } from '../src/row-mapping.js';
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
      await writeTokenVaultV1Rows((sql, values) => db.pool.query(sql, values), postgresWriter);

      const grants = await createPostgresGrantStore(db.pool);
      const pending = await createPostgresTokenVaultPendingStore(db.pool);
      await expectTokenVaultV1RowsReadBack(grants, pending);
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
    });
  },
);
