import { describe, expect, it } from 'vitest';
import type { GrantRecord, OAuthStorage } from './storage.js';

const NOW = Date.parse('2026-01-01T00:00:00Z');
let counter = 0;
function unique(prefix: string): string {
  counter += 1;
  return `${prefix}-${counter}-${Math.random().toString(36).slice(2, 10)}`;
}

function grant(overrides: Partial<GrantRecord> = {}): GrantRecord {
  return {
    grantId: unique('grant'),
    userId: 'user-1',
    clientId: 'https://app.example/client.json',
    clientType: 'metadata_document',
    kind: 'authorization_code',
    scopes: ['mcp:tools', 'offline_access'],
    resources: ['https://api.example/mcp'],
    offlineAccess: true,
    createdAt: NOW,
    lastUsedAt: NOW,
    ...overrides,
  };
}

/**
 * Two storages on one database, as two server instances have them: what `describeGrantStoreConformance`
 * checks revocation across. Absent for a storage that only lives in one process (memory).
 */
export type StoragePair = () => Promise<readonly [OAuthStorage, OAuthStorage]>;

/**
 * The grant and client-block part of the storage conformance suite (run by `describeOAuthStorageConformance`).
 * Every test writes under a tenant of its own (grants are swept only at the `expiresAt` the server sets).
 */
export function describeGrantStoreConformance(
  makeStorage: () => OAuthStorage | Promise<OAuthStorage>,
  twoInstances?: StoragePair,
): void {
  describe('grants', () => {
    it('returns a created grant with every field intact, and undefined for an unknown id', async () => {
      const store = await makeStorage();
      const tenant = unique('t');
      const record = grant();
      await store.grants.create(tenant, record);
      expect(await store.grants.get(tenant, record.grantId)).toEqual(record);
      expect(await store.grants.get(tenant, 'nope')).toBeUndefined();
      expect(await store.grants.get(unique('t'), record.grantId)).toBeUndefined();
    });

    it('creating a grant id again keeps the first record', async () => {
      const store = await makeStorage();
      const tenant = unique('t');
      const record = grant();
      await store.grants.create(tenant, record);
      await store.grants.create(tenant, { ...record, userId: 'someone-else' });
      expect((await store.grants.get(tenant, record.grantId))?.userId).toBe('user-1');
    });

    it('lists by user or client, ordered by id, active only unless revoked ones are asked for', async () => {
      const store = await makeStorage();
      const tenant = unique('t');
      const a = grant({ grantId: 'g-a', userId: 'alice', clientId: 'c1' });
      const b = grant({ grantId: 'g-b', userId: 'alice', clientId: 'c2' });
      const c = grant({ grantId: 'g-c', userId: 'bob', clientId: 'c1' });
      for (const record of [c, a, b]) await store.grants.create(tenant, record);
      await store.grants.revoke(tenant, 'g-b', NOW + 1, 'user');
      expect((await store.grants.list(tenant, { userId: 'alice' })).map((g) => g.grantId)).toEqual(['g-a']);
      expect(
        (await store.grants.list(tenant, { userId: 'alice', includeRevoked: true })).map((g) => g.grantId),
      ).toEqual(['g-a', 'g-b']);
      expect((await store.grants.list(tenant, { clientId: 'c1' })).map((g) => g.grantId)).toEqual([
        'g-a',
        'g-c',
      ]);
      expect(
        (await store.grants.list(tenant, { userId: 'bob', clientId: 'c1' })).map((g) => g.grantId),
      ).toEqual(['g-c']);
      expect(
        (await store.grants.list(tenant, { afterGrantId: 'g-a', limit: 1 })).map((g) => g.grantId),
      ).toEqual(['g-c']);
    });

    it('touch only moves lastUsedAt later', async () => {
      const store = await makeStorage();
      const tenant = unique('t');
      const record = grant();
      await store.grants.create(tenant, record);
      await store.grants.touch(tenant, record.grantId, NOW + 60_000);
      await store.grants.touch(tenant, record.grantId, NOW + 30_000);
      await store.grants.touch(tenant, 'unknown', NOW + 60_000);
      expect((await store.grants.get(tenant, record.grantId))?.lastUsedAt).toBe(NOW + 60_000);
    });

    it('revoke marks the grant with its time and reason, and the first revocation stays', async () => {
      const store = await makeStorage();
      const tenant = unique('t');
      const record = grant();
      await store.grants.create(tenant, record);
      const first = await store.grants.revoke(tenant, record.grantId, NOW + 5, 'user');
      expect(first).toEqual({ ...record, revokedAt: NOW + 5, revokedReason: 'user' });
      const again = await store.grants.revoke(tenant, record.grantId, NOW + 9, 'admin');
      expect(again).toEqual(first);
      expect(await store.grants.revoke(tenant, 'unknown', NOW, 'user')).toBeUndefined();
    });

    it('revokeWhere revokes the active grants the filter matches and answers only those', async () => {
      const store = await makeStorage();
      const tenant = unique('t');
      await store.grants.create(tenant, grant({ grantId: 'g1', clientId: 'c1', userId: 'alice' }));
      await store.grants.create(tenant, grant({ grantId: 'g2', clientId: 'c1', userId: 'bob' }));
      await store.grants.create(tenant, grant({ grantId: 'g3', clientId: 'c2', userId: 'alice' }));
      await store.grants.revoke(tenant, 'g2', NOW, 'user');
      const revoked = await store.grants.revokeWhere(tenant, { clientId: 'c1' }, NOW + 7, 'client_blocked');
      expect(revoked.map((g) => [g.grantId, g.revokedAt, g.revokedReason])).toEqual([
        ['g1', NOW + 7, 'client_blocked'],
      ]);
      expect((await store.grants.get(tenant, 'g2'))?.revokedReason).toBe('user');
      expect((await store.grants.get(tenant, 'g3'))?.revokedAt).toBeUndefined();
      const byUser = await store.grants.revokeWhere(tenant, { userId: 'alice', clientId: 'c2' }, NOW, 'user');
      expect(byUser.map((g) => g.grantId)).toEqual(['g3']);
    });

    it('keeps expiresAt (when the sweep may delete the grant): touch and revocations move it only when given', async () => {
      const store = await makeStorage();
      const tenant = unique('t');
      const record = grant({ expiresAt: NOW + 1000 });
      await store.grants.create(tenant, record);
      expect((await store.grants.get(tenant, record.grantId))?.expiresAt).toBe(NOW + 1000);
      await store.grants.touch(tenant, record.grantId, NOW + 10);
      expect((await store.grants.get(tenant, record.grantId))?.expiresAt).toBe(NOW + 1000);
      await store.grants.touch(tenant, record.grantId, NOW + 20, NOW + 2000);
      expect((await store.grants.get(tenant, record.grantId))?.expiresAt).toBe(NOW + 2000);
      // A touch that does not move lastUsedAt later leaves expiresAt alone too (one conditional write).
      await store.grants.touch(tenant, record.grantId, NOW + 5, NOW + 9999);
      expect((await store.grants.get(tenant, record.grantId))?.expiresAt).toBe(NOW + 2000);
      const revoked = await store.grants.revoke(tenant, record.grantId, NOW + 30, 'user', NOW + 5000);
      expect(revoked?.expiresAt).toBe(NOW + 5000);
      // The first revocation stays, with its expiresAt.
      await store.grants.revoke(tenant, record.grantId, NOW + 40, 'admin', NOW + 1);
      expect((await store.grants.get(tenant, record.grantId))?.expiresAt).toBe(NOW + 5000);

      const kept = grant({ userId: 'user-9' });
      const swept = grant({ userId: 'user-9', expiresAt: NOW + 1000 });
      await store.grants.create(tenant, kept);
      await store.grants.create(tenant, swept);
      const bulk = await store.grants.revokeWhere(
        tenant,
        { userId: 'user-9' },
        NOW + 50,
        'admin',
        NOW + 7000,
      );
      expect(bulk.map((g) => g.expiresAt)).toEqual([NOW + 7000, NOW + 7000]);
      const noExpiry = grant();
      await store.grants.create(tenant, noExpiry);
      expect(await store.grants.get(tenant, noExpiry.grantId)).not.toHaveProperty('expiresAt');
    });

    it('of concurrent revocations of one grant, every caller sees the same first mark', async () => {
      const store = await makeStorage();
      const tenant = unique('t');
      const record = grant();
      await store.grants.create(tenant, record);
      const outcomes = await Promise.all(
        Array.from({ length: 8 }, (_, i) => store.grants.revoke(tenant, record.grantId, NOW + i, `r${i}`)),
      );
      const marks = new Set(outcomes.map((g) => `${g?.revokedAt}:${g?.revokedReason}`));
      expect(marks.size).toBe(1);
    });

    it('of concurrent revokeWhere calls, each grant is answered by exactly one', async () => {
      const store = await makeStorage();
      const tenant = unique('t');
      for (let i = 0; i < 6; i += 1) {
        await store.grants.create(tenant, grant({ grantId: `g${i}`, clientId: 'c1' }));
      }
      const outcomes = await Promise.all(
        Array.from({ length: 4 }, () => store.grants.revokeWhere(tenant, { clientId: 'c1' }, NOW, 'admin')),
      );
      expect(
        outcomes
          .flat()
          .map((g) => g.grantId)
          .sort(),
      ).toEqual(['g0', 'g1', 'g2', 'g3', 'g4', 'g5']);
    });
  });

  describe('client blocks', () => {
    it('a blocked client id reads back until unblocked; blocking again keeps the first time', async () => {
      const store = await makeStorage();
      const tenant = unique('t');
      const clientId = 'https://app.example/client.json';
      expect(await store.clientBlocks.get(tenant, clientId)).toBeUndefined();
      await store.clientBlocks.block(tenant, { clientId, blockedAt: NOW });
      await store.clientBlocks.block(tenant, { clientId, blockedAt: NOW + 5 });
      expect(await store.clientBlocks.get(tenant, clientId)).toEqual({ clientId, blockedAt: NOW });
      expect(await store.clientBlocks.get(unique('t'), clientId)).toBeUndefined();
      expect(await store.clientBlocks.unblock(tenant, clientId)).toBe(true);
      expect(await store.clientBlocks.unblock(tenant, clientId)).toBe(false);
      expect(await store.clientBlocks.get(tenant, clientId)).toBeUndefined();
    });
  });

  if (twoInstances !== undefined) {
    describe('grants across instances on one database', () => {
      it('a revocation through one instance is seen by a second instance on the same database', async () => {
        const [first, second] = await twoInstances();
        const tenant = unique('t');
        const record = grant();
        await first.grants.create(tenant, record);
        expect((await second.grants.get(tenant, record.grantId))?.revokedAt).toBeUndefined();
        await first.grants.revoke(tenant, record.grantId, NOW + 1, 'admin');
        expect((await second.grants.get(tenant, record.grantId))?.revokedAt).toBe(NOW + 1);
        await second.clientBlocks.block(tenant, { clientId: record.clientId, blockedAt: NOW });
        expect(await first.clientBlocks.get(tenant, record.clientId)).toBeDefined();
      });
    });
  }
}
