import { OAuthError } from './errors.js';
import type { EventSink } from './events/emitter.js';
import { catalogued } from './events/reasons.js';
import {
  GRANT_TOUCH_INTERVAL_MS,
  type GrantRetention,
  sweepAfterRevocation,
  sweepAfterUse,
} from './grant-retention.js';
import type { ServerContext } from './options.js';
import { pooledRandomToken } from './random-pool.js';
import type { RequestEvent } from './request-event.js';
import { scopeList } from './scopes.js';
import type { AuthEvent, ClientType, GrantFilter, GrantKind, GrantRecord } from './storage.js';
import type { Tenant } from './tenant.js';
import type { AccessTokenClaims } from './tokens.js';

/** What a grant type knows when it is about to issue tokens under a grant. */
export interface GrantOpening {
  /** The id to use (an authorization code's refresh family); default: a fresh one. */
  readonly grantId?: string;
  readonly userId: string;
  readonly clientId: string;
  readonly clientType: ClientType;
  readonly kind: GrantKind;
  readonly scope: string;
  readonly resources: readonly string[];
  readonly offlineAccess: boolean;
}

/**
 * Records the grant tokens are about to be issued under, then refuses (`invalid_grant`) when the client is
 * blocked. The grant is written first on purpose: a block that lands between the check and the write would
 * otherwise miss it, since blocking revokes the grants it finds (see `blockClient`).
 */
export async function openGrant(
  context: ServerContext,
  tenant: Tenant,
  opening: GrantOpening,
): Promise<string> {
  const now = context.clock.now();
  const grantId = opening.grantId ?? pooledRandomToken(16);
  await context.storage.grants.create(tenant.slug, {
    grantId,
    userId: opening.userId,
    clientId: opening.clientId,
    clientType: opening.clientType,
    kind: opening.kind,
    scopes: [...new Set(scopeList(opening.scope))].sort(),
    resources: opening.resources,
    offlineAccess: opening.offlineAccess,
    createdAt: now,
    lastUsedAt: now,
    ...withExpiry(sweepAfterUse(context.grantRetention, now)),
  });
  context.events.emit(grantEvent(tenant.slug, 'grant.created', now, { grantId, ...opening }));
  await refuseIfBlocked(context, tenant, opening.clientId, grantId);
  return grantId;
}

/**
 * The one active machine grant of a client (client_credentials), opened on first use: machine tokens carry
 * a grant id too, so blocking the client or revoking the grant refuses them at the next request.
 */
export async function machineGrant(
  context: ServerContext,
  tenant: Tenant,
  clientId: string,
  clientType: ClientType,
  scope: string,
): Promise<string> {
  const userId = `client:${clientId}`;
  const [active] = await context.storage.grants.list(tenant.slug, { userId, clientId, limit: 1 });
  if (active === undefined) {
    return openGrant(context, tenant, {
      userId,
      clientId,
      clientType,
      kind: 'client_credentials',
      scope,
      resources: [],
      offlineAccess: false,
    });
  }
  await refuseIfBlocked(context, tenant, clientId, active.grantId);
  touchIfStale(context, tenant, active, context.clock.now());
  return active.grantId;
}

/**
 * The grant behind a refresh token (an authorization-code grant's id is its refresh family id): refused with
 * `invalid_grant` when revoked or when the client is blocked. Families older than grant records get one.
 */
export async function refreshGrant(
  context: ServerContext,
  tenant: Tenant,
  opening: GrantOpening & { readonly grantId: string },
  event?: RequestEvent,
): Promise<string> {
  const found = await context.storage.grants.get(tenant.slug, opening.grantId);
  if (found === undefined) return openGrant(context, tenant, opening);
  if (found.revokedAt !== undefined) {
    if (event) event.reason = 'token.rejected.grant_revoked';
    throw new OAuthError('invalid_grant', 'the grant was revoked');
  }
  await refuseIfBlocked(context, tenant, opening.clientId, found.grantId, event);
  touchIfStale(context, tenant, found, context.clock.now());
  return found.grantId;
}

/**
 * Revokes one grant (its access tokens are refused at their next request), keeping its row until the
 * retention after revocation has passed, so a late token of it is still recognised and refused.
 */
export async function revokeGrant(
  context: Pick<ServerContext, 'storage' | 'grantRetention'>,
  tenant: string,
  grantId: string,
  now: number,
  reason: string,
): Promise<void> {
  await context.storage.grants.revoke(
    tenant,
    grantId,
    now,
    reason,
    sweepAfterRevocation(context.grantRetention, now),
  );
}

/**
 * `invalid_grant` naming the block when the client is blocked, after revoking the grant it was about to use
 * (a block revokes the client's grants; one opened while the block landed is caught here).
 */
export async function refuseIfBlocked(
  context: ServerContext,
  tenant: Tenant,
  clientId: string,
  grantId?: string,
  event?: RequestEvent,
): Promise<void> {
  if ((await context.storage.clientBlocks.get(tenant.slug, clientId)) === undefined) return;
  if (event) event.reason = 'client.blocked';
  if (grantId !== undefined) {
    await revokeGrant(context, tenant.slug, grantId, context.clock.now(), 'client_blocked');
  }
  throw new OAuthError('invalid_grant', 'the client is blocked on this server');
}

/**
 * Why a verified access token is refused although its signature, issuer, expiry and audience hold: its `jti`
 * was revoked, or the grant it names was. Both are one primary-key read, made together; a storage outage
 * throws (`StorageUnavailableError`), so the caller answers 503 and never accepts an unchecked token. An
 * accepted token's grant gets its `lastUsedAt` moved, at most once a minute and without waiting for it.
 */
export async function tokenRefusal(
  context: ServerContext,
  tenant: Tenant,
  claims: AccessTokenClaims,
  now: number,
): Promise<string | undefined> {
  const grantId = claims.grant_id;
  const [revoked, grant] = await Promise.all([
    context.storage.revokedAccessTokens.isRevoked(tenant.slug, claims.jti, now),
    grantId === undefined ? undefined : context.storage.grants.get(tenant.slug, grantId),
  ]);
  if (revoked) return 'the access token was revoked';
  // A grant id with no record is a token from before the record was kept (or a store that lost it): it is
  // judged as such tokens always were, by its jti and expiry.
  if (grant?.revokedAt !== undefined) return 'the access token was revoked (its grant was revoked)';
  if (grant !== undefined) touchIfStale(context, tenant, grant, now);
  return undefined;
}

/**
 * Moves the grant's `lastUsedAt` when it is older than the touch interval; never fails the request. The
 * `grant.used` event goes with the write, throttled as it is: one per grant a minute at most, never one per
 * request (the request's own event says what was decided).
 */
function touchIfStale(context: ServerContext, tenant: Tenant, grant: GrantRecord, now: number): void {
  if (now - grant.lastUsedAt < GRANT_TOUCH_INTERVAL_MS) return;
  const expiresAt = sweepAfterUse(context.grantRetention, now);
  context.storage.grants.touch(tenant.slug, grant.grantId, now, expiresAt).then(
    () => {
      context.events.emit(grantEvent(tenant.slug, 'grant.used', now, grant));
    },
    (error: unknown) => {
      context.logger.warn(
        {
          event: 'grant_touch_failed',
          tenant: tenant.slug,
          err: error instanceof Error ? error.name : typeof error,
        },
        'the last use of a grant could not be recorded',
      );
    },
  );
}

/**
 * The `grant` event of a grant's life (opened, used, revoked): the grant's own ids, which the server wrote
 * itself, and nothing else. Never anonymous: a grant names its user (or its client, for a machine grant).
 */
export function grantEvent(
  tenant: string,
  reason: string,
  at: number,
  grant: Pick<GrantRecord, 'grantId' | 'userId' | 'clientId'>,
): AuthEvent {
  return {
    at,
    tenant,
    category: 'grant',
    reason: catalogued(reason),
    status: 200,
    clientId: grant.clientId,
    userId: grant.userId,
    grantId: grant.grantId,
  };
}

/** What ending grants needs of the server: the part of its context `server.grants` and `server.clients` hold. */
export type GrantContext = Pick<ServerContext, 'storage' | 'clock' | 'logger'> & {
  readonly events: Pick<EventSink, 'emit'>;
  /** Absent: revoked rows get no `expiresAt` and are kept. */
  readonly grantRetention?: GrantRetention;
};

/**
 * Revokes the active grants a filter matches (at least a user or a client) and ends each; answers the count.
 */
export async function revokeGrantsWhere(
  context: GrantContext,
  tenant: string,
  filter: GrantFilter,
  reason: string,
): Promise<number> {
  if (filter.userId === undefined && filter.clientId === undefined) {
    throw new OAuthError('invalid_request', 'revoking grants needs a userId or a clientId');
  }
  const now = context.clock.now();
  const revoked = await context.storage.grants.revokeWhere(
    tenant,
    filter,
    now,
    reason,
    sweepAfterRevocation(context.grantRetention, now),
  );
  for (const grant of revoked) await endGrant(context, tenant, grant);
  return revoked.length;
}

/**
 * What revoking a grant takes with it besides the mark: its refresh family (an authorization-code grant's id
 * is its family id) and the user's remembered consent for the client, so the next authorization asks again.
 * Each revoked grant is one `grant.revoked.<reason>` event, a bulk revocation (a client's grants, a
 * block) included, so a person's timeline shows their grant ended and why.
 */
export async function endGrant(context: GrantContext, tenant: string, grant: GrantRecord): Promise<void> {
  const now = context.clock.now();
  if (grant.kind === 'authorization_code') {
    await context.storage.refreshTokens.revokeFamily(tenant, grant.grantId, now);
    await context.storage.consents.delete(tenant, grant.userId, grant.clientId);
  }
  context.logger.info(
    {
      event: 'grant_revoked',
      tenant,
      clientId: grant.clientId,
      grantId: grant.grantId,
      reason: grant.revokedReason,
    },
    'grant revoked',
  );
  context.events.emit(grantEvent(tenant, `grant.revoked.${grant.revokedReason ?? 'admin'}`, now, grant));
}

/** `{ expiresAt }` when there is one: records leave absent what they do not know. */
function withExpiry(expiresAt: number | undefined): { readonly expiresAt?: number } {
  return expiresAt === undefined ? {} : { expiresAt };
}
