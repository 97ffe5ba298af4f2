import { expectTokenVaultV1RowsReadBack, writeTokenVaultV1Rows } from '@keyhold/store-sql-common/testing';
import { describe, expect, it } from 'vitest';
import { migrateSqlite } from '../src/migrations.js';
import { sqliteWriter } from '../src/row-mapping.js';
import { TOKEN_VAULT_SQLITE_MIGRATIONS } from '../src/token-vault-schema.js';
import { createSqliteGrantStore, createSqliteTokenVaultPendingStore } from '../src/token-vault-store.js';
import { temporaryDatabases } from './temp-database.js';

const databases = temporaryDatabases();

describe('token_vault migration 2: photon_id becomes tool_module_id, session_id goes, existing rows survive', () => {
  it('a grant and an elicitation written under schema version 1 read back under the new names', async () => {
    const db = databases.file();
    migrateSqlite(db, 'token_vault', TOKEN_VAULT_SQLITE_MIGRATIONS.slice(0, 1));
    await writeTokenVaultV1Rows((sql, values) => db.prepare(sql).run(...values), sqliteWriter);

    const grants = createSqliteGrantStore(db);
    const pending = createSqliteTokenVaultPendingStore(db);
    await expectTokenVaultV1RowsReadBack(grants, pending);
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
  });
});
