import type { ClaimRecord, ClaimStore } from './storage.js';

/**
 * A {@link ClaimStore} in process memory: for tests and for hosts that do not need claims to survive a
 * restart (the spec wants persistence, so production hosts use {@link createFileClaimStore} or a database).
 *
 * @example
 * ```ts
 * const claims = createClaims({ store: createMemoryClaimStore() });
 * ```
 */
export function createMemoryClaimStore(): ClaimStore {
  const records = new Map<string, ClaimRecord>();
  return {
    insert: async (record) => {
      if (records.has(record.code)) return false;
      records.set(record.code, { ...record });
      return true;
    },
    get: async (code) => {
      const record = records.get(code);
      return record === undefined ? undefined : { ...record };
    },
    list: async () => [...records.values()].map((record) => ({ ...record })),
    delete: async (code) => records.delete(code),
    deleteExpired: async (now) => {
      let removed = 0;
      for (const [code, record] of records) {
        if (record.expiresAt <= now) {
          records.delete(code);
          removed++;
        }
      }
      return removed;
    },
  };
}
