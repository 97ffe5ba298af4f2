import type { GrantRecord } from '@keyhold/oauth-core';
import { describe, expect, it } from 'vitest';
import { OAUTH_SQLITE_SWEPT_TABLES } from '../src/oauth-schema.js';
import { createSqliteOAuthStorage } from '../src/oauth-store.js';
import { startSqliteExpirySweeper } from '../src/sweeper.js';
import { temporaryDatabases } from './temp-database.js';

const databases = temporaryDatabases();
const NOW = 1_767_225_600_000;

function grant(grantId: string, overrides: Partial<GrantRecord> = {}): GrantRecord {
  return {
    grantId,
    userId: 'alice',
    clientId: 'app',
    clientType: 'registered',
    kind: 'authorization_code',
    scopes: ['mcp:tools'],
    resources: [],
    offlineAccess: true,
    createdAt: NOW - 10_000,
    lastUsedAt: NOW - 10_000,
    ...overrides,
  };
}

describe('the expiry sweep deletes grants past the expiresAt the server set, and only those', () => {
  it('removes a revoked grant and a long-unused one once due, keeps a due-later one and rows without expiresAt', async () => {
    const db = databases.memory();
    const storage = createSqliteOAuthStorage(db);
    await storage.grants.create('t', grant('revoked-due', { expiresAt: NOW + 50 }));
    await storage.grants.revoke('t', 'revoked-due', NOW - 100, 'user', NOW - 1);
    await storage.grants.create('t', grant('unused-due', { expiresAt: NOW - 1 }));
    await storage.grants.create('t', grant('revoked-later', { expiresAt: NOW + 50 }));
    await storage.grants.revoke('t', 'revoked-later', NOW - 100, 'admin', NOW + 1);
    await storage.grants.create('t', grant('used-recently', { expiresAt: NOW - 1 }));
    await storage.grants.touch('t', 'used-recently', NOW, NOW + 1_000);
    await storage.grants.create('t', grant('older-row'));
    const sweeper = startSqliteExpirySweeper(db, {
      tables: OAUTH_SQLITE_SWEPT_TABLES,
      clock: { now: () => NOW },
    });
    expect(await sweeper.sweepNow()).toBe(2);
    await sweeper.stop();
    const left = await storage.grants.list('t', { includeRevoked: true });
    expect(left.map((g) => g.grantId)).toEqual(['older-row', 'revoked-later', 'used-recently']);
  });
});
