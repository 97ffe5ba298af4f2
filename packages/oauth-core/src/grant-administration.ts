import { checkIds, checkTenantSlug, isUsableId, listLimit } from './admin-arguments.js';
import { endGrant, type GrantContext, revokeGrantsWhere } from './grant-records.js';
import { sweepAfterRevocation } from './grant-retention.js';
import type { GrantFilter, GrantListOptions, GrantRecord } from './storage.js';

/**
 * What {@link GrantAdministration.revoke} did: the grant as revoked, or `not_found` for an unknown id and for
 * a grant of another user alike (no existence oracle).
 *
 * @example
 * ```ts
 * const outcome = await server.grants.revoke('demo', grantId, { userId: session.userId });
 * if (!outcome.ok) return new Response('not found', { status: 404 });
 * ```
 */
export type GrantRevocation =
  | { readonly ok: true; readonly grant: GrantRecord }
  | { readonly ok: false; readonly reason: 'not_found' };

/**
 * Grants a person or an administrator can see and end (`server.grants`): what a "connected apps" page, an
 * admin screen and the `keyhold grants` command call. Revoking a grant refuses its access tokens at the next
 * request on every resource and instance, revokes its refresh tokens and forgets the user's remembered
 * consent for the client (the next authorization asks again). A malformed tenant slug throws `invalid_request`.
 *
 * @example
 * ```ts
 * for (const grant of await server.grants.list('demo', { userId: session.userId })) console.log(grant.clientId);
 * await server.grants.revoke('demo', grantId, { userId: session.userId });
 * const count = await server.grants.revokeAll('demo', { clientId: 'https://app.example/client.json' });
 * ```
 */
export interface GrantAdministration {
  /** One page of grants, by user and/or client, ordered by id; active ones only unless `includeRevoked`. */
  list(tenant: string, options?: GrantListOptions): Promise<readonly GrantRecord[]>;
  /**
   * Revokes one grant. With `userId` (a person ending their own grant) a grant of someone else answers
   * exactly like an unknown id. A grant already revoked answers `ok` with its first revocation.
   */
  revoke(
    tenant: string,
    grantId: string,
    options?: { readonly userId?: string; readonly reason?: string },
  ): Promise<GrantRevocation>;
  /**
   * Revokes every active grant of a client, of a user, or of a user for a client (forgetting their consent:
   * deleting a consent this way revokes its grants); answers how many were revoked.
   */
  revokeAll(tenant: string, filter: GrantFilter, options?: { readonly reason?: string }): Promise<number>;
}

/** What the server gives {@link createGrantAdministration}. */
export type GrantAdministrationOptions = GrantContext;

/**
 * Creates `server.grants` over the server's storage. Internal: hosts and the CLI use `server.grants`.
 */
export function createGrantAdministration(options: GrantAdministrationOptions): GrantAdministration {
  const { storage } = options;

  return {
    async list(tenant, listOptions = {}) {
      checkTenantSlug(tenant);
      checkIds({
        userId: listOptions.userId,
        clientId: listOptions.clientId,
        afterGrantId: listOptions.afterGrantId,
      });
      return storage.grants.list(tenant, { ...listOptions, limit: listLimit(listOptions.limit) });
    },
    async revoke(tenant, grantId, revokeOptions = {}) {
      checkTenantSlug(tenant);
      checkIds({ userId: revokeOptions.userId, reason: revokeOptions.reason });
      // An id no grant can have is answered like an unknown one, never as an error (no oracle either way).
      if (!isUsableId(grantId)) return { ok: false, reason: 'not_found' };
      const found = await storage.grants.get(tenant, grantId);
      if (found === undefined) return { ok: false, reason: 'not_found' };
      if (revokeOptions.userId !== undefined && found.userId !== revokeOptions.userId) {
        return { ok: false, reason: 'not_found' };
      }
      const reason = revokeOptions.reason ?? (revokeOptions.userId === undefined ? 'admin' : 'user');
      const now = options.clock.now();
      const revoked = await storage.grants.revoke(
        tenant,
        grantId,
        now,
        reason,
        sweepAfterRevocation(options.grantRetention, now),
      );
      if (revoked === undefined) return { ok: false, reason: 'not_found' };
      // A revocation by a person or an administrator is a decision too: endGrant emits its event.
      await endGrant(options, tenant, revoked);
      return { ok: true, grant: revoked };
    },
    async revokeAll(tenant, filter, revokeOptions = {}) {
      checkTenantSlug(tenant);
      checkIds({ userId: filter.userId, clientId: filter.clientId, reason: revokeOptions.reason });
      return revokeGrantsWhere(options, tenant, filter, revokeOptions.reason ?? 'admin');
    },
  };
}
