import { randomToken } from '@keyhold/internal';
import type {
  ElicitationRecord,
  Grant,
  GrantKey,
  GrantStore,
  PendingAuthorization,
  ProviderAuthorizationStore,
  RefreshLock,
  StoredGrant,
  TokenVaultStorage,
} from './storage.js';

function grantId(key: GrantKey): string {
  return JSON.stringify([key.tenantId, key.userId, key.toolModuleId, key.provider, key.scopes.join(' ')]);
}

// Records are copied on the way in and frozen, so a caller mutating what it passed or got back cannot
// change the store: the same isolation a database gives.
function freezeGrant(grant: Grant, version: number): StoredGrant {
  const copy: StoredGrant = { ...structuredClone(grant), version };
  Object.freeze(copy.scopes);
  if (copy.grantedScopes) Object.freeze(copy.grantedScopes);
  return Object.freeze(copy);
}

// Keeps `keep` and the newest `maxPerUser - 1` other live records of its user; deletes the rest of that
// user's records (older live ones, and expired ones). Among records of the same millisecond the later put
// counts as newer (Map order is insertion order; the sort is stable). One pass over the map per put: this
// store is for tests and a single process.
function trimPerUser<T extends { tenantId: string; userId: string; createdAt: number; expiresAt: number }>(
  records: Map<string, T>,
  keepId: string,
  maxPerUser: number,
): void {
  const keep = records.get(keepId);
  if (keep === undefined) return;
  const others = [...records].filter(
    ([id, record]) => id !== keepId && record.tenantId === keep.tenantId && record.userId === keep.userId,
  );
  const live = others
    .filter(([, record]) => record.expiresAt > keep.createdAt)
    .reverse()
    .sort(([, a], [, b]) => b.createdAt - a.createdAt);
  const kept = new Set(live.slice(0, Math.max(0, maxPerUser - 1)).map(([id]) => id));
  for (const [id] of others) if (!kept.has(id)) records.delete(id);
}

function freezeRecord<T extends { scopes: readonly string[] }>(record: T): T {
  const copy = structuredClone(record);
  Object.freeze(copy.scopes);
  return Object.freeze(copy);
}

/**
 * An in-memory {@link GrantStore} for tests and single-process development.
 *
 * @example
 * ```ts
 * const grants = createMemoryGrantStore();
 * ```
 */
export function createMemoryGrantStore(): GrantStore {
  const grants = new Map<string, StoredGrant>();
  return {
    get: async (key) => grants.get(grantId(key)),
    put: async (grant) => {
      const id = grantId(grant);
      const stored = freezeGrant(grant, (grants.get(id)?.version ?? 0) + 1);
      grants.set(id, stored);
      return stored;
    },
    compareAndSwap: async (grant, expectedVersion) => {
      const id = grantId(grant);
      const current = grants.get(id);
      if (current === undefined || current.version !== expectedVersion) return undefined;
      const stored = freezeGrant(grant, expectedVersion + 1);
      grants.set(id, stored);
      return stored;
    },
    delete: async (key) => grants.delete(grantId(key)),
    list: async ({ tenantId, userId }) =>
      [...grants.values()].filter(
        (grant) => grant.tenantId === tenantId && (userId === undefined || grant.userId === userId),
      ),
  };
}

/**
 * An in-memory {@link ProviderAuthorizationStore}; expired records are dropped lazily when touched.
 *
 * @example
 * ```ts
 * const pending = createMemoryProviderAuthorizationStore();
 * ```
 */
export function createMemoryProviderAuthorizationStore(): ProviderAuthorizationStore {
  const elicitations = new Map<string, ElicitationRecord>();
  const authorizations = new Map<string, PendingAuthorization>();
  return {
    putElicitation: async (record, maxPerUser) => {
      elicitations.set(record.elicitationId, freezeRecord(record));
      trimPerUser(elicitations, record.elicitationId, maxPerUser);
    },
    getElicitation: async (elicitationId, now) => {
      const record = elicitations.get(elicitationId);
      if (record === undefined) return undefined;
      if (record.expiresAt <= now) {
        elicitations.delete(elicitationId);
        return undefined;
      }
      return record;
    },
    deleteElicitation: async (elicitationId) => {
      elicitations.delete(elicitationId);
    },
    putAuthorization: async (record, maxPerUser) => {
      authorizations.set(record.nonceHash, freezeRecord(record));
      trimPerUser(authorizations, record.nonceHash, maxPerUser);
    },
    consumeAuthorization: async (nonceHash, now) => {
      const record = authorizations.get(nonceHash);
      // Get and delete happen in one synchronous step, so no other caller can see the record in between.
      authorizations.delete(nonceHash);
      if (record === undefined || record.expiresAt <= now) return undefined;
      return record;
    },
  };
}

/**
 * An in-memory {@link RefreshLock}: enough for one process (where the broker's own single-flight already
 * joins concurrent refreshes) and for tests that run several brokers against shared storage.
 *
 * @example
 * ```ts
 * const refreshLock = createMemoryRefreshLock();
 * ```
 */
export function createMemoryRefreshLock(): RefreshLock {
  const leases = new Map<string, { token: string; expiresAt: number }>();
  return {
    acquire: async (key, now, expiresAt) => {
      const current = leases.get(key);
      if (current !== undefined && current.expiresAt > now) return undefined;
      const token = randomToken(16);
      leases.set(key, { token, expiresAt });
      return token;
    },
    release: async (key, token) => {
      const current = leases.get(key);
      if (current === undefined || current.token !== token) return false;
      leases.delete(key);
      return true;
    },
  };
}

/**
 * All of a broker's storage in memory.
 *
 * @example
 * ```ts
 * const broker = createTokenBroker({ baseUrl, vault, providers, storage: createMemoryBrokerStorage() });
 * ```
 */
export function createMemoryBrokerStorage(): TokenVaultStorage {
  return {
    grants: createMemoryGrantStore(),
    pending: createMemoryProviderAuthorizationStore(),
    refreshLock: createMemoryRefreshLock(),
  };
}
