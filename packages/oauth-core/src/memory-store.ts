import { createMemoryOnceStore } from '@keyhold/core';
import { createMemoryEventStore } from './events/memory-events.js';
import type {
  AuthorizationCodeRecord,
  ClientBlockRecord,
  ClientRecord,
  ConsentRecord,
  GrantFilter,
  GrantRecord,
  OAuthStorage,
  PendingAuthorizationRecord,
  RefreshTokenRecord,
} from './storage.js';

function key(tenant: string, ...parts: readonly string[]): string {
  // NUL cannot occur in a tenant slug, an id or a hash, so joined keys never collide.
  return [tenant, ...parts].join('\u0000');
}

function copy<T extends object>(record: T): T {
  // Callers get their own copy, as they would from a database, so mutating it never edits the store.
  // Records are flat apart from arrays of strings and a client's `jwks`, which is cloned whole.
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(record)) {
    out[name] = Array.isArray(value)
      ? [...value]
      : typeof value === 'object' && value !== null
        ? structuredClone(value)
        : value;
  }
  return out as T;
}

const DEFAULT_LIST_LIMIT = 100;
const PRUNE_EVERY = 256;

/**
 * An in-memory {@link OAuthStorage} for tests and single-process development. Every operation completes
 * synchronously inside one turn of the event loop, which is what makes `consume` atomic here. Nothing is
 * persisted and expired records are only dropped when touched.
 *
 * @example
 * ```ts
 * const server = createAuthorizationServer({ storage: createMemoryStorage(), baseUrl, tenants });
 * ```
 */
export function createMemoryStorage(): OAuthStorage {
  const clients = new Map<string, ClientRecord>();
  const codes = new Map<string, AuthorizationCodeRecord>();
  const pending = new Map<string, PendingAuthorizationRecord>();
  const refresh = new Map<string, RefreshTokenRecord>();
  const families = new Map<string, Set<string>>();
  const consents = new Map<string, Map<string, ConsentRecord>>();
  const revoked = new Map<string, number>();
  const grants = new Map<string, GrantRecord>();
  const blocks = new Map<string, ClientBlockRecord>();
  const grantsOf = (tenant: string, filter: GrantFilter): [string, GrantRecord][] => {
    const prefix = key(tenant, '');
    return [...grants.entries()].filter(
      ([k, record]) =>
        k.startsWith(prefix) &&
        (filter.userId === undefined || record.userId === filter.userId) &&
        (filter.clientId === undefined || record.clientId === filter.clientId),
    );
  };
  let consumes = 0;

  return {
    clients: {
      async get(tenant, clientId) {
        const found = clients.get(key(tenant, clientId));
        return found && copy(found);
      },
      async create(tenant, client) {
        const k = key(tenant, client.clientId);
        if (clients.has(k)) throw new Error(`client ${client.clientId} already exists`);
        clients.set(k, copy(client));
      },
      async delete(tenant, clientId) {
        clients.delete(key(tenant, clientId));
      },
      async list(tenant, options = {}) {
        const limit = options.limit ?? DEFAULT_LIST_LIMIT;
        const prefix = key(tenant, '');
        const after = options.afterClientId;
        return [...clients.entries()]
          .filter(([k, record]) => k.startsWith(prefix) && (after === undefined || record.clientId > after))
          .map(([, record]) => record)
          .sort((a, b) => (a.clientId < b.clientId ? -1 : a.clientId > b.clientId ? 1 : 0))
          .slice(0, Math.max(0, limit))
          .map(copy);
      },
      async touch(tenant, clientId, expiresAt) {
        const k = key(tenant, clientId);
        const found = clients.get(k);
        if (found) clients.set(k, { ...found, expiresAt });
      },
      async countDynamic(tenant, now) {
        const prefix = key(tenant, '');
        let count = 0;
        for (const [k, record] of clients) {
          if (record.expiresAt !== undefined && record.expiresAt > now && k.startsWith(prefix)) count += 1;
        }
        return count;
      },
    },
    authorizationCodes: {
      async save(tenant, record) {
        codes.set(key(tenant, record.codeHash), copy(record));
      },
      async consume(tenant, codeHash, now) {
        consumes += 1;
        if (consumes % PRUNE_EVERY === 0) {
          // Consumed codes are kept until they expire; dropping the expired ones now and then keeps the
          // map bounded by the codes of the last code lifetime.
          for (const [k, record] of codes) if (record.expiresAt <= now) codes.delete(k);
        }
        const k = key(tenant, codeHash);
        const found = codes.get(k);
        if (!found) return undefined;
        if (found.consumedAt !== undefined) return copy(found);
        // The stored object is replaced, so the caller may have the old one itself.
        codes.set(k, { ...found, consumedAt: now });
        return found;
      },
    },
    pendingAuthorizations: {
      async save(tenant, record) {
        pending.set(key(tenant, record.id), copy(record));
      },
      async get(tenant, id) {
        const found = pending.get(key(tenant, id));
        return found && copy(found);
      },
      async consume(tenant, id) {
        const k = key(tenant, id);
        const found = pending.get(k);
        pending.delete(k);
        return found;
      },
    },
    refreshTokens: {
      async save(tenant, record) {
        refresh.set(key(tenant, record.tokenHash), copy(record));
        const familyKey = key(tenant, record.familyId);
        let members = families.get(familyKey);
        if (!members) {
          members = new Set();
          families.set(familyKey, members);
        }
        members.add(record.tokenHash);
      },
      async get(tenant, tokenHash) {
        const found = refresh.get(key(tenant, tokenHash));
        return found && copy(found);
      },
      async rotate(tenant, rotation) {
        const k = key(tenant, rotation.tokenHash);
        const found = refresh.get(k);
        if (!found) return { ok: false, reason: 'unknown' };
        if (
          found.consumedAt !== undefined ||
          found.revokedAt !== undefined ||
          found.expiresAt <= rotation.now ||
          found.clientId !== rotation.clientId
        ) {
          return { ok: false, reason: 'refused', current: copy(found) };
        }
        // The stored object is replaced, so the caller may have the old one itself.
        refresh.set(k, {
          ...found,
          consumedAt: rotation.now,
          ...(rotation.sealedSuccessor === undefined ? {} : { sealedSuccessor: rotation.sealedSuccessor }),
        });
        const { consumedAt: _, revokedAt: __, sealedSuccessor: ___, ...inherited } = found;
        const successor: RefreshTokenRecord = {
          ...inherited,
          resources: [...found.resources],
          tokenHash: rotation.successorHash,
          createdAt: rotation.now,
          expiresAt: rotation.successorExpiresAt,
        };
        refresh.set(key(tenant, successor.tokenHash), successor);
        families.get(key(tenant, found.familyId))?.add(successor.tokenHash);
        return { ok: true, previous: found };
      },
      async restampRotation(tenant, tokenHash, rotatedAt) {
        const k = key(tenant, tokenHash);
        const found = refresh.get(k);
        if (found?.consumedAt !== undefined && found.consumedAt < rotatedAt) {
          refresh.set(k, { ...found, consumedAt: rotatedAt });
        }
      },
      async revokeFamily(tenant, familyId, now) {
        for (const tokenHash of families.get(key(tenant, familyId)) ?? []) {
          const k = key(tenant, tokenHash);
          const found = refresh.get(k);
          if (found && found.revokedAt === undefined) refresh.set(k, { ...found, revokedAt: now });
        }
      },
    },
    consents: {
      async save(tenant, record) {
        const k = key(tenant, record.userId, record.clientId);
        let byScopes = consents.get(k);
        if (!byScopes) {
          byScopes = new Map();
          consents.set(k, byScopes);
        }
        byScopes.set(record.scopes.join(' '), copy(record));
      },
      async list(tenant, userId, clientId, now) {
        const byScopes = consents.get(key(tenant, userId, clientId));
        return [...(byScopes?.values() ?? [])].filter((record) => record.expiresAt > now).map(copy);
      },
      async delete(tenant, userId, clientId) {
        consents.delete(key(tenant, userId, clientId));
      },
    },
    grants: {
      async create(tenant, record) {
        const k = key(tenant, record.grantId);
        if (!grants.has(k)) grants.set(k, copy(record));
      },
      async get(tenant, grantId) {
        const found = grants.get(key(tenant, grantId));
        return found && copy(found);
      },
      async list(tenant, options = {}) {
        const after = options.afterGrantId;
        return grantsOf(tenant, options)
          .map(([, record]) => record)
          .filter(
            (record) =>
              (options.includeRevoked === true || record.revokedAt === undefined) &&
              (after === undefined || record.grantId > after),
          )
          .sort((a, b) => (a.grantId < b.grantId ? -1 : a.grantId > b.grantId ? 1 : 0))
          .slice(0, Math.max(0, options.limit ?? DEFAULT_LIST_LIMIT))
          .map(copy);
      },
      async touch(tenant, grantId, usedAt, expiresAt) {
        const k = key(tenant, grantId);
        const found = grants.get(k);
        if (found && found.lastUsedAt < usedAt) {
          grants.set(k, { ...found, lastUsedAt: usedAt, ...(expiresAt === undefined ? {} : { expiresAt }) });
        }
      },
      async revoke(tenant, grantId, now, reason, expiresAt) {
        const k = key(tenant, grantId);
        const found = grants.get(k);
        if (!found) return undefined;
        if (found.revokedAt !== undefined) return copy(found);
        const revokedGrant = {
          ...found,
          revokedAt: now,
          revokedReason: reason,
          ...(expiresAt === undefined ? {} : { expiresAt }),
        };
        grants.set(k, revokedGrant);
        return copy(revokedGrant);
      },
      async revokeWhere(tenant, filter, now, reason, expiresAt) {
        if (filter.userId === undefined && filter.clientId === undefined) {
          throw new Error('revokeWhere needs a userId or a clientId');
        }
        const done: GrantRecord[] = [];
        for (const [k, record] of grantsOf(tenant, filter)) {
          if (record.revokedAt !== undefined) continue;
          const revokedGrant = {
            ...record,
            revokedAt: now,
            revokedReason: reason,
            ...(expiresAt === undefined ? {} : { expiresAt }),
          };
          grants.set(k, revokedGrant);
          done.push(copy(revokedGrant));
        }
        return done;
      },
    },
    clientBlocks: {
      async block(tenant, record) {
        const k = key(tenant, record.clientId);
        if (!blocks.has(k)) blocks.set(k, copy(record));
      },
      async unblock(tenant, clientId) {
        return blocks.delete(key(tenant, clientId));
      },
      async get(tenant, clientId) {
        const found = blocks.get(key(tenant, clientId));
        return found && copy(found);
      },
    },
    events: createMemoryEventStore(),
    onceStore: createMemoryOnceStore(),
    revokedAccessTokens: {
      async revoke(tenant, jti, expiresAt) {
        revoked.set(key(tenant, jti), expiresAt);
      },
      async isRevoked(tenant, jti, now) {
        const k = key(tenant, jti);
        const expiresAt = revoked.get(k);
        if (expiresAt === undefined) return false;
        if (expiresAt <= now) {
          // The token has expired anyway; forgetting it keeps the set bounded by live tokens.
          revoked.delete(k);
        }
        return true;
      },
    },
  };
}
