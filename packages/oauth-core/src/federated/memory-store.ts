import { randomToken } from '@keyhold/internal';
import type { FederatedIdentity, LoginTransaction, LoginTransactionStore, UserStore } from './storage.js';

// JSON of a two-element array: unambiguous whatever characters issuer and subject contain.
const keyOf = (identity: FederatedIdentity): string => JSON.stringify([identity.issuer, identity.subject]);

/**
 * A {@link UserStore} in process memory: for tests, single-process development and as the reference the
 * conformance suite is checked against. User ids are `usr_` followed by 128 random bits.
 *
 * @example
 * ```ts
 * const users = createMemoryUserStore();
 * ```
 */
export function createMemoryUserStore(): UserStore {
  const users = new Map<string, string>();
  const identities = new Map<string, FederatedIdentity[]>();
  return {
    // Synchronous between the lookup and the insert, so concurrent callers cannot both create.
    async findOrCreateUser(identity) {
      const key = keyOf(identity);
      const existing = users.get(key);
      if (existing !== undefined) return { userId: existing, created: false };
      const userId = `usr_${randomToken(16)}`;
      users.set(key, userId);
      identities.set(userId, [{ issuer: identity.issuer, subject: identity.subject }]);
      return { userId, created: true };
    },
    async findUser(identity) {
      return users.get(keyOf(identity));
    },
    async listIdentities(userId) {
      return (identities.get(userId) ?? []).map((identity) => ({ ...identity }));
    },
  };
}

/**
 * A {@link LoginTransactionStore} in process memory. Expired transactions are dropped when met, and swept
 * whenever more than 1000 are held, so abandoned logins do not pile up.
 *
 * @example
 * ```ts
 * const transactions = createMemoryLoginTransactionStore();
 * ```
 */
export function createMemoryLoginTransactionStore(): LoginTransactionStore {
  const transactions = new Map<string, LoginTransaction>();
  return {
    async save(transaction) {
      transactions.set(transaction.id, { ...transaction });
    },
    async consume(id, now) {
      if (transactions.size > 1000) {
        for (const [key, stored] of transactions) if (stored.expiresAt <= now) transactions.delete(key);
      }
      const transaction = transactions.get(id);
      transactions.delete(id);
      if (transaction === undefined || transaction.expiresAt <= now) return undefined;
      return transaction;
    },
  };
}
