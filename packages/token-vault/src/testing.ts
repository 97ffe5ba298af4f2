import { describe, expect, it } from 'vitest';
import type {
  ElicitationRecord,
  Grant,
  GrantStore,
  PendingAuthorization,
  ProviderAuthorizationStore,
  RefreshLock,
  TokenVaultStorage,
} from './storage.js';

type MaybePromise<T> = T | Promise<T>;

/** One factory per store a backend provides; each is called once per test and returns an empty store. */
type StoreFactories = {
  readonly [Store in keyof TokenVaultStorage]?: () => MaybePromise<TokenVaultStorage[Store]>;
};

/**
 * Runs the contract of each token-vault store a backend provides: grants (compare-and-swap, exactly one
 * winner of concurrent writers), pending provider authorizations (expiry, the per-user bound, exactly one
 * winner of `consumeAuthorization`) and the refresh lock (one holder at a time, expiry, release by the
 * holder only). Give the stores the backend has; a backend with only a refresh lock gives only that.
 *
 * @example
 * ```ts
 * const fresh = () => createSqliteStores(openSqliteDatabase(':memory:')).vault;
 * describeTokenVaultStorageConformance('sqlite', {
 *   grants: () => fresh().grants,
 *   pending: () => fresh().pending,
 *   refreshLock: () => fresh().refreshLock,
 * });
 * describeTokenVaultStorageConformance('redis', { refreshLock: () => createRedisStores(url).refreshLock });
 * ```
 */
export function describeTokenVaultStorageConformance(name: string, stores: StoreFactories): void {
  if (stores.grants) describeGrantStoreConformance(name, stores.grants);
  if (stores.pending) describeProviderAuthorizationStoreConformance(name, stores.pending);
  if (stores.refreshLock) describeRefreshLockConformance(name, stores.refreshLock);
}

const T0 = Date.parse('2026-01-01T00:00:00Z');

function sampleGrant(overrides: Partial<Grant> = {}): Grant {
  return {
    tenantId: 'tenant-a',
    userId: 'user-1',
    toolModuleId: 'module-1',
    provider: 'github',
    scopes: ['read:user', 'user:email'],
    status: 'valid',
    accessTokenEncrypted: 'v1.k1.YWNjZXNz',
    refreshTokenEncrypted: 'v1.k1.cmVmcmVzaA==',
    tokenExpiresAt: T0 + 3_600_000,
    grantedScopes: ['read:user', 'user:email'],
    createdAt: T0,
    updatedAt: T0,
    ...overrides,
  };
}

function withoutVersion<T extends { version?: number }>(record: T): Omit<T, 'version'> {
  const { version: _version, ...rest } = record;
  return rest;
}

function describeGrantStoreConformance(name: string, makeStore: () => MaybePromise<GrantStore>): void {
  describe(`GrantStore conformance: ${name}`, () => {
    it('returns undefined for a grant that was never stored', async () => {
      const store = await makeStore();
      expect(await store.get(sampleGrant())).toBeUndefined();
    });

    it('round-trips every field of a grant, as JSON-serialisable data, at version 1', async () => {
      const store = await makeStore();
      const grant = sampleGrant();
      const stored = await store.put(grant);
      expect(stored.version).toBe(1);
      const read = await store.get(grant);
      expect(read).toEqual({ ...grant, version: 1 });
      expect(JSON.parse(JSON.stringify(read))).toEqual(read);
    });

    it('keeps optional fields absent rather than null', async () => {
      const store = await makeStore();
      const { refreshTokenEncrypted: _r, tokenExpiresAt: _t, grantedScopes: _g, ...bare } = sampleGrant();
      await store.put(bare);
      const read = await store.get(bare);
      // toEqual treats a missing key and `undefined` alike, but not `null`.
      expect(read).toEqual({ ...bare, version: 1 });
    });

    it('keys grants on tenant, user, tool module, provider and the scope set', async () => {
      const store = await makeStore();
      const base = sampleGrant();
      await store.put(base);
      for (const other of [
        { tenantId: 'tenant-b' },
        { userId: 'user-2' },
        { toolModuleId: 'module-2' },
        { provider: 'google' },
        { scopes: ['read:user'] },
        { scopes: ['read:user', 'repo', 'user:email'] },
      ]) {
        expect(await store.get({ ...base, ...other })).toBeUndefined();
      }
      expect((await store.get({ ...base }))?.accessTokenEncrypted).toBe(base.accessTokenEncrypted);
    });

    it('put overwrites and increments the version', async () => {
      const store = await makeStore();
      await store.put(sampleGrant());
      const second = await store.put(sampleGrant({ accessTokenEncrypted: 'v1.k1.bmV3' }));
      expect(second.version).toBe(2);
      expect((await store.get(sampleGrant()))?.accessTokenEncrypted).toBe('v1.k1.bmV3');
    });

    it('compareAndSwap writes only over the expected version', async () => {
      const store = await makeStore();
      const first = await store.put(sampleGrant());
      const swapped = await store.compareAndSwap(
        sampleGrant({ accessTokenEncrypted: 'v1.k1.Mg==' }),
        first.version,
      );
      expect(swapped?.version).toBe(first.version + 1);
      const stale = await store.compareAndSwap(
        sampleGrant({ accessTokenEncrypted: 'v1.k1.Mw==' }),
        first.version,
      );
      expect(stale).toBeUndefined();
      expect((await store.get(sampleGrant()))?.accessTokenEncrypted).toBe('v1.k1.Mg==');
    });

    it('compareAndSwap on a missing grant writes nothing', async () => {
      const store = await makeStore();
      expect(await store.compareAndSwap(sampleGrant(), 1)).toBeUndefined();
      expect(await store.get(sampleGrant())).toBeUndefined();
    });

    it('of 50 concurrent compareAndSwap calls on one version exactly one wins', async () => {
      const store = await makeStore();
      const first = await store.put(sampleGrant());
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          store.compareAndSwap(sampleGrant({ accessTokenEncrypted: `v1.k1.${i}` }), first.version),
        ),
      );
      const winners = results.filter((result) => result !== undefined);
      expect(winners).toHaveLength(1);
      expect((await store.get(sampleGrant()))?.accessTokenEncrypted).toBe(winners[0]?.accessTokenEncrypted);
      expect((await store.get(sampleGrant()))?.version).toBe(first.version + 1);
    });

    it('delete removes one grant and reports whether it existed', async () => {
      const store = await makeStore();
      await store.put(sampleGrant());
      await store.put(sampleGrant({ provider: 'google' }));
      expect(await store.delete(sampleGrant())).toBe(true);
      expect(await store.delete(sampleGrant())).toBe(false);
      expect(await store.get(sampleGrant())).toBeUndefined();
      expect(await store.get(sampleGrant({ provider: 'google' }))).toBeDefined();
    });

    it('list returns the grants of a tenant, optionally of one user', async () => {
      const store = await makeStore();
      await store.put(sampleGrant());
      await store.put(sampleGrant({ userId: 'user-2' }));
      await store.put(sampleGrant({ tenantId: 'tenant-b' }));
      const tenant = await store.list({ tenantId: 'tenant-a' });
      expect(tenant.map((grant) => grant.userId).sort()).toEqual(['user-1', 'user-2']);
      const user = await store.list({ tenantId: 'tenant-a', userId: 'user-2' });
      expect(user.map((grant) => withoutVersion(grant))).toEqual([sampleGrant({ userId: 'user-2' })]);
    });

    it('does not let a caller change a stored grant through the object it passed or got back', async () => {
      const store = await makeStore();
      const grant = { ...sampleGrant(), scopes: ['read:user', 'user:email'] };
      await store.put(grant);
      grant.scopes.push('repo');
      const read = await store.get(sampleGrant());
      expect(read?.scopes).toEqual(['read:user', 'user:email']);
      try {
        (read?.scopes as string[] | undefined)?.push('admin');
      } catch {
        // frozen records are one correct way to meet this rule
      }
      expect((await store.get(sampleGrant()))?.scopes).toEqual(['read:user', 'user:email']);
    });
  });
}

function sampleElicitation(overrides: Partial<ElicitationRecord> = {}): ElicitationRecord {
  return {
    elicitationId: 'elicitation-1',
    tenantId: 'tenant-a',
    userId: 'user-1',
    toolModuleId: 'module-1',
    provider: 'github',
    scopes: ['read:user'],
    message: 'Connect GitHub',
    createdAt: T0,
    expiresAt: T0 + 600_000,
    ...overrides,
  };
}

function samplePending(overrides: Partial<PendingAuthorization> = {}): PendingAuthorization {
  return {
    nonceHash: 'nonce-hash-1',
    elicitationId: 'elicitation-1',
    tenantId: 'tenant-a',
    userId: 'user-1',
    toolModuleId: 'module-1',
    provider: 'github',
    scopes: ['read:user'],
    codeVerifier: 'verifier-1',
    createdAt: T0,
    expiresAt: T0 + 300_000,
    ...overrides,
  };
}

function describeProviderAuthorizationStoreConformance(
  name: string,
  makeStore: () => MaybePromise<ProviderAuthorizationStore>,
): void {
  describe(`ProviderAuthorizationStore conformance: ${name}`, () => {
    it('returns an elicitation until it expires', async () => {
      const store = await makeStore();
      await store.putElicitation(sampleElicitation(), 20);
      expect(await store.getElicitation('elicitation-1', T0)).toEqual(sampleElicitation());
      expect(await store.getElicitation('elicitation-1', T0 + 600_000 - 1)).toBeDefined();
      expect(await store.getElicitation('elicitation-1', T0 + 600_000)).toBeUndefined();
    });

    it('returns undefined for an unknown elicitation and forgets a deleted one', async () => {
      const store = await makeStore();
      expect(await store.getElicitation('nope', T0)).toBeUndefined();
      await store.putElicitation(sampleElicitation(), 20);
      await store.deleteElicitation('elicitation-1');
      expect(await store.getElicitation('elicitation-1', T0)).toBeUndefined();
    });

    it('an elicitation can be read more than once (the link may be opened twice)', async () => {
      const store = await makeStore();
      await store.putElicitation(sampleElicitation(), 20);
      expect(await store.getElicitation('elicitation-1', T0)).toBeDefined();
      expect(await store.getElicitation('elicitation-1', T0)).toBeDefined();
    });

    it('consumeAuthorization returns the record once, then undefined', async () => {
      const store = await makeStore();
      await store.putAuthorization(samplePending(), 20);
      expect(await store.consumeAuthorization('nonce-hash-1', T0)).toEqual(samplePending());
      expect(await store.consumeAuthorization('nonce-hash-1', T0)).toBeUndefined();
    });

    it('consumeAuthorization does not return an expired record, nor later', async () => {
      const store = await makeStore();
      await store.putAuthorization(samplePending(), 20);
      expect(await store.consumeAuthorization('nonce-hash-1', T0 + 300_000)).toBeUndefined();
      expect(await store.consumeAuthorization('nonce-hash-1', T0)).toBeUndefined();
    });

    it('consumeAuthorization of an unknown nonce hash returns undefined', async () => {
      const store = await makeStore();
      await store.putAuthorization(samplePending(), 20);
      expect(await store.consumeAuthorization('other', T0)).toBeUndefined();
      expect(await store.consumeAuthorization('nonce-hash-1', T0)).toBeDefined();
    });

    it('of 50 concurrent consumeAuthorization calls exactly one gets the record', async () => {
      const store = await makeStore();
      await store.putAuthorization(samplePending(), 20);
      const results = await Promise.all(
        Array.from({ length: 50 }, () => store.consumeAuthorization('nonce-hash-1', T0)),
      );
      expect(results.filter((result) => result !== undefined)).toHaveLength(1);
    });

    it("bounds the live elicitations of one user: a put beyond maxPerUser deletes that user's oldest", async () => {
      const store = await makeStore();
      for (let i = 0; i < 5; i++) {
        await store.putElicitation(sampleElicitation({ elicitationId: `e-${i}`, createdAt: T0 + i }), 3);
      }
      // Another user's records are never spent by this user's puts.
      await store.putElicitation(sampleElicitation({ elicitationId: 'other', userId: 'user-2' }), 3);
      const alive = [];
      for (let i = 0; i < 5; i++) {
        if (await store.getElicitation(`e-${i}`, T0)) alive.push(`e-${i}`);
      }
      expect(alive).toEqual(['e-2', 'e-3', 'e-4']);
      expect(await store.getElicitation('other', T0)).toBeDefined();
    });

    it('the elicitation just put always stays, even among records created in the same millisecond', async () => {
      const store = await makeStore();
      for (let i = 0; i < 4; i++) {
        await store.putElicitation(sampleElicitation({ elicitationId: `e-${i}` }), 2);
        expect(await store.getElicitation(`e-${i}`, T0)).toBeDefined();
      }
      let alive = 0;
      for (let i = 0; i < 4; i++) if (await store.getElicitation(`e-${i}`, T0)) alive++;
      expect(alive).toBe(2);
    });

    it('expired elicitations do not count towards the bound', async () => {
      const store = await makeStore();
      await store.putElicitation(sampleElicitation({ elicitationId: 'a', createdAt: T0 + 20 }), 2);
      // Newer than `a` but expired by the time `b` is put: `b` keeps `a`, not it.
      const expired = sampleElicitation({ elicitationId: 'old', createdAt: T0 + 25, expiresAt: T0 + 26 });
      await store.putElicitation(expired, 2);
      await store.putElicitation(sampleElicitation({ elicitationId: 'b', createdAt: T0 + 30 }), 2);
      expect(await store.getElicitation('a', T0 + 30)).toBeDefined();
      expect(await store.getElicitation('b', T0 + 30)).toBeDefined();
    });

    it('bounds the pending authorizations of one user the same way', async () => {
      const store = await makeStore();
      for (let i = 0; i < 5; i++) {
        await store.putAuthorization(samplePending({ nonceHash: `n-${i}`, createdAt: T0 + i }), 2);
      }
      await store.putAuthorization(samplePending({ nonceHash: 'other', tenantId: 'tenant-b' }), 2);
      const taken = [];
      for (let i = 0; i < 5; i++) {
        if (await store.consumeAuthorization(`n-${i}`, T0)) taken.push(`n-${i}`);
      }
      expect(taken).toEqual(['n-3', 'n-4']);
      expect(await store.consumeAuthorization('other', T0)).toBeDefined();
    });
  });
}

function describeRefreshLockConformance(name: string, makeLock: () => MaybePromise<RefreshLock>): void {
  describe(`RefreshLock conformance: ${name}`, () => {
    it('grants a free lease and refuses it to others until released', async () => {
      const lock = await makeLock();
      const token = await lock.acquire('grant-1', T0, T0 + 30_000);
      expect(typeof token).toBe('string');
      expect(await lock.acquire('grant-1', T0 + 1, T0 + 30_001)).toBeUndefined();
      expect(await lock.acquire('grant-2', T0, T0 + 30_000)).toBeDefined();
      expect(await lock.release('grant-1', token!)).toBe(true);
      expect(await lock.acquire('grant-1', T0 + 2, T0 + 30_002)).toBeDefined();
    });

    it('a lease that has expired can be taken over', async () => {
      const lock = await makeLock();
      const first = await lock.acquire('grant-1', T0, T0 + 30_000);
      const second = await lock.acquire('grant-1', T0 + 30_000, T0 + 60_000);
      expect(second).toBeDefined();
      expect(second).not.toBe(first);
      // The former holder can no longer release the new holder's lease.
      expect(await lock.release('grant-1', first!)).toBe(false);
      expect(await lock.acquire('grant-1', T0 + 30_001, T0 + 60_001)).toBeUndefined();
    });

    it('release with a wrong token does nothing', async () => {
      const lock = await makeLock();
      await lock.acquire('grant-1', T0, T0 + 30_000);
      expect(await lock.release('grant-1', 'not-the-token')).toBe(false);
      expect(await lock.acquire('grant-1', T0 + 1, T0 + 30_001)).toBeUndefined();
    });

    it('of 50 concurrent acquire calls exactly one gets the lease', async () => {
      const lock = await makeLock();
      const results = await Promise.all(
        Array.from({ length: 50 }, () => lock.acquire('grant-1', T0, T0 + 30_000)),
      );
      expect(results.filter((result) => result !== undefined)).toHaveLength(1);
    });
  });
}
