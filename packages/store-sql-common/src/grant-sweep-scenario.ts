import type { GrantRecord, OAuthStorage } from '@keyhold/oauth-core';
import { expect } from 'vitest';

function grant(grantId: string, now: number, overrides: Partial<GrantRecord> = {}): GrantRecord {
  return {
    grantId,
    userId: 'alice',
    clientId: 'app',
    clientType: 'registered',
    kind: 'authorization_code',
    scopes: ['mcp:tools'],
    resources: [],
    offlineAccess: true,
    createdAt: now - 10_000,
    lastUsedAt: now - 10_000,
    ...overrides,
  };
}

/**
 * The grant-retention rule both SQL stores' expiry sweeps must keep: a revoked grant and a long-unused one
 * go once their `expiresAt` is due; one due later (or moved later by a use) and rows written before grants
 * had an `expiresAt` stay. `sweepNow` runs the backend's sweeper once at `now` and returns what it deleted.
 *
 * @example
 * ```ts
 * await expectGrantSweep(createSqliteOAuthStorage(db), NOW, () => sweeper.sweepNow());
 * ```
 */
export async function expectGrantSweep(
  storage: OAuthStorage,
  now: number,
  sweepNow: () => Promise<number>,
): Promise<void> {
  await storage.grants.create('t', grant('revoked-due', now, { expiresAt: now + 50 }));
  await storage.grants.revoke('t', 'revoked-due', now - 100, 'user', now - 1);
  await storage.grants.create('t', grant('unused-due', now, { expiresAt: now - 1 }));
  await storage.grants.create('t', grant('revoked-later', now, { expiresAt: now + 50 }));
  await storage.grants.revoke('t', 'revoked-later', now - 100, 'admin', now + 1);
  await storage.grants.create('t', grant('used-recently', now, { expiresAt: now - 1 }));
  await storage.grants.touch('t', 'used-recently', now, now + 1_000);
  await storage.grants.create('t', grant('older-row', now));
  expect(await sweepNow()).toBe(2);
  const left = await storage.grants.list('t', { includeRevoked: true });
  expect(left.map((g) => g.grantId)).toEqual(['older-row', 'revoked-later', 'used-recently']);
}
