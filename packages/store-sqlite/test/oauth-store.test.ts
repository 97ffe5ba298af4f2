import {
  describeOAuthStorageConformance,
  describeRefreshReuseConformance,
} from '@keyhold/oauth-core/testing';
import { describe, expect, it } from 'vitest';
import { openSqliteDatabase } from '../src/database.js';
import { OAUTH_SQLITE_SWEPT_TABLES } from '../src/oauth-schema.js';
import { createSqliteOAuthStorage } from '../src/oauth-store.js';
import { sweepExpiredSqlite } from '../src/sweeper.js';
import { temporaryDatabases } from './temp-database.js';

const databases = temporaryDatabases();

describeOAuthStorageConformance('sqlite (:memory:)', () => createSqliteOAuthStorage(databases.memory()));
describeOAuthStorageConformance('sqlite (WAL file)', () => createSqliteOAuthStorage(databases.file()), {
  // Two connections on one file: two processes (or instances) sharing the database.
  twoInstances: async () => {
    const path = databases.path();
    return [
      createSqliteOAuthStorage(openSqliteDatabase(path)),
      createSqliteOAuthStorage(openSqliteDatabase(path)),
    ] as const;
  },
});
describeRefreshReuseConformance('sqlite (WAL file)', () => createSqliteOAuthStorage(databases.file()));

const NOW = 1_767_225_600_000;

describe('createSqliteOAuthStorage', () => {
  it('keeps records across a reopen of the same file', async () => {
    const db = databases.file();
    const storage = createSqliteOAuthStorage(db);
    await storage.revokedAccessTokens.revoke('t1', 'jti-kept', NOW + 1000);
    const again = createSqliteOAuthStorage(db);
    expect(await again.revokedAccessTokens.isRevoked('t1', 'jti-kept', NOW)).toBe(true);
  });

  it('keeps working after another process adds a column (rolling upgrade)', async () => {
    const path = databases.path();
    const storage = createSqliteOAuthStorage(databases.file(path));
    await storage.revokedAccessTokens.revoke('t1', 'before', NOW + 1000);
    expect(await storage.revokedAccessTokens.isRevoked('t1', 'before', NOW)).toBe(true);
    const newer = openSqliteDatabase(path);
    newer.exec('ALTER TABLE keyhold_oauth_refresh_tokens ADD COLUMN added_by_newer_code TEXT');
    newer.close();
    const record = {
      tokenHash: 'rt',
      familyId: 'f',
      clientId: 'c',
      clientType: 'registered' as const,
      userId: 'u',
      scope: 'mcp',
      resources: [],
      createdAt: NOW,
      expiresAt: NOW + 1000,
    };
    await storage.refreshTokens.save('t1', record);
    const rotation = {
      tokenHash: 'rt',
      clientId: 'c',
      now: NOW,
      successorHash: 'rt2',
      successorExpiresAt: NOW + 9,
    };
    expect(await storage.refreshTokens.rotate('t1', rotation)).toEqual({
      ok: true,
      previous: record,
    });
  });

  it('looks every record up through an index (no full scans)', () => {
    const db = databases.memory();
    createSqliteOAuthStorage(db);
    const lookups = [
      'SELECT * FROM keyhold_oauth_clients WHERE tenant = ? AND client_id = ?',
      'SELECT * FROM keyhold_oauth_codes WHERE tenant = ? AND code_hash = ?',
      'SELECT * FROM keyhold_oauth_pending WHERE tenant = ? AND id = ?',
      'SELECT * FROM keyhold_oauth_refresh_tokens WHERE tenant = ? AND token_hash = ?',
      'SELECT * FROM keyhold_oauth_refresh_tokens WHERE tenant = ? AND family_id = ?',
      'SELECT * FROM keyhold_oauth_consents WHERE tenant = ? AND user_id = ? AND client_id = ?',
      'SELECT * FROM keyhold_oauth_revoked_access_tokens WHERE tenant = ? AND jti = ?',
      'SELECT * FROM keyhold_oauth_grants WHERE tenant = ? AND grant_id = ?',
      'SELECT * FROM keyhold_oauth_grants WHERE tenant = ? AND user_id = ? AND ? IS NULL AND grant_id > ? ORDER BY grant_id',
      'SELECT * FROM keyhold_oauth_grants WHERE tenant = ? AND ? IS NULL AND client_id = ? AND grant_id > ? ORDER BY grant_id',
      'SELECT * FROM keyhold_oauth_client_blocks WHERE tenant = ? AND client_id = ?',
    ];
    for (const sql of lookups) {
      const plan = db
        .prepare(`EXPLAIN QUERY PLAN ${sql}`)
        .all(...Array.from(sql.match(/\?/g) ?? [], (_, i) => `v${i}`))
        .map((row) => String((row as Record<string, unknown>)['detail']));
      expect(plan.join('; '), sql).toMatch(/USING (PRIMARY KEY|INDEX|COVERING INDEX)/);
    }
  });
});

describe('sweepExpiredSqlite', () => {
  it('deletes expired rows only, at most one batch per table per call', async () => {
    const db = databases.memory();
    const storage = createSqliteOAuthStorage(db);
    for (let i = 0; i < 5; i++) await storage.revokedAccessTokens.revoke('t1', `old-${i}`, NOW - 1);
    await storage.revokedAccessTokens.revoke('t1', 'live', NOW + 1);
    expect(sweepExpiredSqlite(db, OAUTH_SQLITE_SWEPT_TABLES, NOW, 3)).toBe(3);
    expect(sweepExpiredSqlite(db, OAUTH_SQLITE_SWEPT_TABLES, NOW, 3)).toBe(2);
    expect(await storage.revokedAccessTokens.isRevoked('t1', 'live', NOW)).toBe(true);
    expect(await storage.revokedAccessTokens.isRevoked('t1', 'old-0', NOW)).toBe(false);
  });

  it('refuses a table name that is not a plain identifier', () => {
    const db = databases.memory();
    expect(() => sweepExpiredSqlite(db, ['x; DROP TABLE y'], NOW)).toThrowError(
      expect.objectContaining({ code: 'ERR_INVALID_OPTIONS' }),
    );
  });
});
