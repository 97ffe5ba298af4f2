import { beforeAll, describe, expect, it } from 'vitest';
import { CLAIMS_POSTGRES_SWEPT_TABLES, createPostgresClaimStore } from '../src/claim-store.js';
import { OAUTH_POSTGRES_SWEPT_TABLES } from '../src/oauth-schema.js';
import { createPostgresOAuthStorage } from '../src/oauth-store.js';
import { startPostgresExpirySweeper } from '../src/sweeper.js';
import { TOKEN_VAULT_POSTGRES_SWEPT_TABLES } from '../src/token-vault-schema.js';
import { createPostgresTokenVaultStorage } from '../src/token-vault-store.js';
import { requirePostgres, useIsolatedPool } from './postgres.js';

const available = await requirePostgres();

describe.skipIf(!available)('PostgreSQL schema', () => {
  const db = useIsolatedPool();
  beforeAll(async () => {
    await createPostgresOAuthStorage(db.pool);
    await createPostgresTokenVaultStorage(db.pool);
    await createPostgresClaimStore(db.pool);
  });

  it('serves every lookup by key from an index (O(log n)), never a sequential scan', async () => {
    const lookups: [string, unknown[]][] = [
      ['SELECT * FROM keyhold_oauth_clients WHERE tenant = $1 AND client_id = $2', ['t', 'c']],
      ['DELETE FROM keyhold_oauth_codes WHERE tenant = $1 AND code_hash = $2', ['t', 'h']],
      [
        'UPDATE keyhold_oauth_codes SET consumed_at = 1 WHERE tenant = $1 AND code_hash = $2 AND consumed_at IS NULL',
        ['t', 'h'],
      ],
      [
        'SELECT * FROM keyhold_oauth_clients WHERE tenant = $1 AND client_id > $2 ORDER BY client_id LIMIT 100',
        ['t', ''],
      ],
      ['UPDATE keyhold_oauth_clients SET expires_at = 1 WHERE tenant = $1 AND client_id = $2', ['t', 'c']],
      ['DELETE FROM keyhold_oauth_clients WHERE expires_at < $1', [1]],
      ['DELETE FROM keyhold_oauth_pending WHERE tenant = $1 AND id = $2', ['t', 'i']],
      ['SELECT * FROM keyhold_oauth_refresh_tokens WHERE tenant = $1 AND token_hash = $2', ['t', 'h']],
      [
        'UPDATE keyhold_oauth_refresh_tokens SET revoked_at = 1 WHERE tenant = $1 AND family_id = $2',
        ['t', 'f'],
      ],
      [
        'SELECT * FROM keyhold_oauth_consents WHERE tenant = $1 AND user_id = $2 AND client_id = $3',
        ['t', 'u', 'c'],
      ],
      ['SELECT 1 FROM keyhold_oauth_revoked_access_tokens WHERE tenant = $1 AND jti = $2', ['t', 'j']],
      [
        'SELECT * FROM keyhold_vault_grants WHERE tenant_id = $1 AND user_id = $2 AND tool_module_id = $3 AND provider = $4 AND scopes = $5',
        ['t', 'u', 'p', 'g', 's'],
      ],
      ['SELECT * FROM keyhold_vault_grants WHERE tenant_id = $1 AND user_id = $2', ['t', 'u']],
      ['SELECT * FROM keyhold_vault_elicitations WHERE elicitation_id = $1', ['e']],
      ['DELETE FROM keyhold_vault_pending_authorizations WHERE nonce_hash = $1', ['n']],
      ['DELETE FROM keyhold_vault_refresh_leases WHERE lease_key = $1', ['k']],
      // The per-user bound of the pending store reads a user's rows, newest first.
      [
        'SELECT elicitation_id FROM keyhold_vault_elicitations WHERE tenant_id = $1 AND user_id = $2 ORDER BY created_at DESC',
        ['t', 'u'],
      ],
      [
        'SELECT nonce_hash FROM keyhold_vault_pending_authorizations WHERE tenant_id = $1 AND user_id = $2 ORDER BY created_at DESC',
        ['t', 'u'],
      ],
      ['SELECT * FROM keyhold_claims WHERE code = $1', ['ABCDEF']],
      // The bearer policy reads a grant on every request; people and admins list them by user or client.
      ['SELECT * FROM keyhold_oauth_grants WHERE tenant = $1 AND grant_id = $2', ['t', 'g']],
      [
        'SELECT * FROM keyhold_oauth_grants WHERE tenant = $1 AND user_id = $2 AND grant_id > $3 ORDER BY grant_id LIMIT 100',
        ['t', 'u', ''],
      ],
      [
        'SELECT * FROM keyhold_oauth_grants WHERE tenant = $1 AND client_id = $2 AND grant_id > $3 ORDER BY grant_id LIMIT 100',
        ['t', 'c', ''],
      ],
      [
        'UPDATE keyhold_oauth_grants SET revoked_at = 1 WHERE tenant = $1 AND client_id = $2 AND revoked_at IS NULL',
        ['t', 'c'],
      ],
      ['SELECT * FROM keyhold_oauth_client_blocks WHERE tenant = $1 AND client_id = $2', ['t', 'c']],
      // Each timeline append finds the oldest row its part keeps (anonymous or not) through the part's index.
      [
        'SELECT seq FROM keyhold_oauth_events WHERE tenant = $1 AND anonymous = $2 ORDER BY seq DESC LIMIT 1 OFFSET 999',
        ['t', 1],
      ],
    ];
    const client = await db.pool.connect();
    try {
      // On near-empty tables the planner rightly prefers a scan; forbidding it shows an index can serve.
      await client.query('SET enable_seqscan = off');
      for (const [sql, values] of lookups) {
        const { rows } = await client.query(`EXPLAIN ${sql}`, values);
        const plan = rows.map((row: Record<string, string>) => Object.values(row)[0]).join('\n');
        expect(plan, sql).toMatch(/Index (Only )?Scan|Bitmap Index Scan/);
        expect(plan, sql).not.toMatch(/Seq Scan/);
      }
    } finally {
      client.release();
    }
  });

  it('the exported swept-table lists name tables with an indexed expires_at the sweeper can prune', async () => {
    const now = 1_000_000;
    const storage = await createPostgresOAuthStorage(db.pool);
    await storage.revokedAccessTokens.revoke('t', 'old', now - 1);
    await storage.revokedAccessTokens.revoke('t', 'live', now + 1);
    const sweeper = startPostgresExpirySweeper(db.pool, {
      tables: [
        ...OAUTH_POSTGRES_SWEPT_TABLES,
        ...TOKEN_VAULT_POSTGRES_SWEPT_TABLES,
        ...CLAIMS_POSTGRES_SWEPT_TABLES,
      ],
      clock: { now: () => now },
    });
    expect(await sweeper.sweepOnce()).toBe(1);
    await sweeper.stop();
    expect(await storage.revokedAccessTokens.isRevoked('t', 'old', now)).toBe(false);
    expect(await storage.revokedAccessTokens.isRevoked('t', 'live', now)).toBe(true);
  });
});
