import { describe, expect, it } from 'vitest';
import type { LoginTransaction, LoginTransactionStore, UserStore } from './storage.js';

/**
 * The conformance suite every {@link UserStore} passes (memory, SQLite, PostgreSQL): stable ids, one user per
 * (issuer, subject) pair, and atomic provisioning under concurrency. `makeStore` must return an empty store.
 *
 * @example
 * ```ts
 * describeUserStoreConformance('memory', () => createMemoryUserStore());
 * ```
 */
export function describeUserStoreConformance(
  name: string,
  makeStore: () => UserStore | Promise<UserStore>,
): void {
  const now = Date.parse('2026-01-01T00:00:00Z');
  const google = 'https://accounts.google.com';
  const github = 'https://token.actions.example';

  describe(`UserStore conformance: ${name}`, () => {
    it('creates a user on the first login and returns the same id afterwards', async () => {
      const store = await makeStore();
      const first = await store.findOrCreateUser({ issuer: google, subject: 'alice' }, { now });
      expect(first.created).toBe(true);
      expect(typeof first.userId).toBe('string');
      expect(first.userId.length).toBeGreaterThan(0);
      const again = await store.findOrCreateUser({ issuer: google, subject: 'alice' }, { now: now + 1000 });
      expect(again).toEqual({ userId: first.userId, created: false });
      expect(await store.findUser({ issuer: google, subject: 'alice' })).toBe(first.userId);
    });

    it('an unknown identity has no user until its first login', async () => {
      const store = await makeStore();
      expect(await store.findUser({ issuer: google, subject: 'nobody' })).toBeUndefined();
      expect(await store.listIdentities('usr_unknown')).toEqual([]);
    });

    it('different subjects, and one subject at different issuers, are different users', async () => {
      const store = await makeStore();
      const alice = await store.findOrCreateUser({ issuer: google, subject: 'alice' }, { now });
      const bob = await store.findOrCreateUser({ issuer: google, subject: 'bob' }, { now });
      const otherAlice = await store.findOrCreateUser({ issuer: github, subject: 'alice' }, { now });
      expect(new Set([alice.userId, bob.userId, otherAlice.userId]).size).toBe(3);
    });

    it('issuer and subject are compared exactly (no case folding, no trimming, no joining ambiguity)', async () => {
      const store = await makeStore();
      const ids = await Promise.all(
        [
          { issuer: google, subject: 'Alice' },
          { issuer: google, subject: 'alice' },
          { issuer: google, subject: 'alice ' },
          { issuer: `${google}/`, subject: 'alice' },
          { issuer: 'https://a.example|b', subject: 'c' },
          { issuer: 'https://a.example', subject: 'b|c' },
        ].map(async (identity) => (await store.findOrCreateUser(identity, { now })).userId),
      );
      expect(new Set(ids).size).toBe(ids.length);
    });

    it('lists the identities linked to a user', async () => {
      const store = await makeStore();
      const { userId } = await store.findOrCreateUser({ issuer: google, subject: 'carol' }, { now });
      expect(await store.listIdentities(userId)).toEqual([{ issuer: google, subject: 'carol' }]);
    });

    it('50 concurrent first logins of one identity provision exactly one user', async () => {
      const store = await makeStore();
      const results = await Promise.all(
        Array.from({ length: 50 }, () =>
          store.findOrCreateUser({ issuer: google, subject: 'race' }, { now }),
        ),
      );
      expect(new Set(results.map((result) => result.userId)).size).toBe(1);
      expect(results.filter((result) => result.created)).toHaveLength(1);
    });
  });
}

/**
 * The conformance suite every {@link LoginTransactionStore} passes: saved transactions are taken once, expired
 * ones never, and exactly one of many concurrent `consume` calls wins. `makeStore` must return an empty store.
 *
 * @example
 * ```ts
 * describeLoginTransactionStoreConformance('memory', () => createMemoryLoginTransactionStore());
 * ```
 */
export function describeLoginTransactionStoreConformance(
  name: string,
  makeStore: () => LoginTransactionStore | Promise<LoginTransactionStore>,
): void {
  const now = Date.parse('2026-01-01T00:00:00Z');
  const transaction = (id: string, extra: Partial<LoginTransaction> = {}): LoginTransaction => ({
    id,
    providerId: 'upstream',
    codeVerifier: `verifier-${id}`,
    nonce: `nonce-${id}`,
    expiresAt: now + 600_000,
    ...extra,
  });

  describe(`LoginTransactionStore conformance: ${name}`, () => {
    it('returns a saved transaction once, with every field', async () => {
      const store = await makeStore();
      await store.save(transaction('t1', { returnTo: '/tenant/demo/authorize?x=1' }));
      expect(await store.consume('t1', now)).toEqual(
        transaction('t1', { returnTo: '/tenant/demo/authorize?x=1' }),
      );
      expect(await store.consume('t1', now)).toBeUndefined();
    });

    it('an unknown id is undefined', async () => {
      const store = await makeStore();
      expect(await store.consume('missing', now)).toBeUndefined();
    });

    it('an expired transaction is never returned, also not once the clock is set back', async () => {
      const store = await makeStore();
      await store.save(transaction('t2'));
      expect(await store.consume('t2', now + 600_000)).toBeUndefined();
      expect(await store.consume('t2', now)).toBeUndefined();
    });

    it('keeps transactions apart', async () => {
      const store = await makeStore();
      await store.save(transaction('a'));
      await store.save(transaction('b'));
      expect((await store.consume('b', now))?.codeVerifier).toBe('verifier-b');
      expect((await store.consume('a', now))?.codeVerifier).toBe('verifier-a');
    });

    it('50 concurrent consumes of one transaction: exactly one gets it', async () => {
      const store = await makeStore();
      await store.save(transaction('race'));
      const results = await Promise.all(Array.from({ length: 50 }, () => store.consume('race', now)));
      expect(results.filter((result) => result !== undefined)).toHaveLength(1);
    });
  });
}
