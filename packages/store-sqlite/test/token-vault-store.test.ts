import { describeTokenVaultStorageConformance } from '@keyhold/token-vault/testing';
import { describe, expect, it } from 'vitest';
import {
  createSqliteGrantStore,
  createSqliteRefreshLock,
  createSqliteTokenVaultPendingStore,
} from '../src/token-vault-store.js';
import { temporaryDatabases } from './temp-database.js';

const databases = temporaryDatabases();

for (const [label, open] of [
  ['sqlite (:memory:)', databases.memory],
  ['sqlite (WAL file)', databases.file],
] as const) {
  describeTokenVaultStorageConformance(label, {
    grants: () => createSqliteGrantStore(open()),
    pending: () => createSqliteTokenVaultPendingStore(open()),
    refreshLock: () => createSqliteRefreshLock(open()),
  });
}

describe('the per-user bound of the pending store', () => {
  it("reads a user's pending rows through an index (no full scans)", () => {
    const db = databases.memory();
    createSqliteTokenVaultPendingStore(db);
    for (const table of ['keyhold_vault_elicitations', 'keyhold_vault_pending_authorizations']) {
      const plan = db
        .prepare(
          `EXPLAIN QUERY PLAN SELECT * FROM ${table} WHERE tenant_id = ? AND user_id = ? ORDER BY created_at DESC`,
        )
        .all('t', 'u')
        .map((row) => String((row as Record<string, unknown>)['detail']));
      expect(plan.join('; '), table).toMatch(/USING (INDEX|COVERING INDEX) keyhold_vault_\w+_user/);
    }
  });
});
