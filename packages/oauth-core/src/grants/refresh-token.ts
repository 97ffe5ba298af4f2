import { sha256Base64url } from '@keyhold/internal';
import type { VerifiedProof } from '../dpop/proof.js';
import { OAuthError } from '../errors.js';
import { refreshGrant, revokeGrant } from '../grant-records.js';
import type { ServerContext } from '../options.js';
import { pooledRandomToken } from '../random-pool.js';
import { openSuccessor, sealSuccessor } from '../refresh-successor.js';
import type { RequestEvent } from '../request-event.js';
import { audienceFor } from '../resources.js';
import { formatScope, isWithin, parseScope, scopeList } from '../scopes.js';
import type { RefreshTokenRecord } from '../storage.js';
import type { Tenant } from '../tenant.js';
import type { Grant } from './grant.js';
import { authenticateGrantClient } from './grant-client.js';
import { issueTokens } from './issue-tokens.js';
import { userGrantOpening, userTokens } from './user-grant.js';

/**
 * The grant a presented refresh token carries and the refresh token to answer with: a fresh successor, or
 * the one handed out moments ago inside the reuse window. Every refusal is thrown as `invalid_grant`.
 */
interface Redemption {
  readonly record: RefreshTokenRecord;
  readonly successor: string;
}

/**
 * The refresh_token grant (RFC 6749 §6, OAuth 2.1 §4.3.1): every use rotates the token, in one atomic store
 * operation that consumes it and saves its successor. A used token presented again means it leaked, so
 * the whole family is revoked, except inside the refresh reuse window: the same client presenting the
 * token it has just rotated (racing refreshes, a retry after a lost response) gets the same successor
 * while that successor is still unused. A narrower `scope` narrows the access token only; the new refresh
 * token keeps the original grant.
 */
export const refreshTokenGrant: Grant = async (input) => {
  const { context, tenant, params, event, proof } = input;
  const presented = params.refresh_token;
  if (presented === undefined) throw new OAuthError('invalid_request', 'refresh_token is required');
  const requested = parseScope(params.scope);
  if (!requested) throw new OAuthError('invalid_scope', 'scope is malformed');
  const client = await authenticateGrantClient(input, {
    grantType: 'refresh_token',
    name: 'the refresh_token grant',
    allowPublic: true,
  });
  const tokenHash = sha256Base64url(presented);
  // A too-wide scope and a wrong DPoP key are refused before the token is spent, so the client can retry.
  const current =
    params.scope !== undefined || context.dpop !== undefined
      ? await context.storage.refreshTokens.get(tenant.slug, tokenHash)
      : undefined;
  if (current && current.consumedAt === undefined) {
    if (params.scope !== undefined && !isWithin(requested, scopeList(current.scope))) {
      throw new OAuthError('invalid_scope', 'the requested scope is wider than the original grant');
    }
    assertBoundKey(current, proof);
  }
  const redemption = await redeem(context, tenant, client.clientId, presented, tokenHash, event);
  const { record } = redemption;
  // Again on the record rotated: the read above may have raced another rotation.
  assertBoundKey(record, proof);
  const original = scopeList(record.scope);
  if (!isWithin(requested, original)) {
    throw new OAuthError('invalid_scope', 'the requested scope is wider than the original grant');
  }
  // The record is the server's own: its user and grant name the refusal too.
  event.user_id = record.userId;
  event.grant_id = record.familyId;
  const grantId = await refreshGrant(
    context,
    tenant,
    { grantId: record.familyId, ...userGrantOpening(client, record, true) },
    event,
  );
  event.grant_id = grantId;
  return issueTokens(context, tenant, {
    ...userTokens(client, record, grantId),
    accessScope: params.scope === undefined ? record.scope : formatScope(requested),
    audience: audienceFor(tenant, record.resources),
    refresh: { rotated: redemption.successor },
    ...(proof === undefined ? {} : { jkt: proof.jkt }),
  });
};

/** RFC 9449 §5: a refresh token bound to a key (a public client's) is redeemed only with a proof of that key. */
function assertBoundKey(record: RefreshTokenRecord, proof: VerifiedProof | undefined): void {
  if (record.jkt !== undefined && proof?.jkt !== record.jkt) {
    throw new OAuthError('invalid_grant', 'the refresh token is bound to another DPoP key');
  }
}

/** Rotates the presented token, or recognises a repeat inside the reuse window; throws `invalid_grant`. */
async function redeem(
  context: ServerContext,
  tenant: Tenant,
  clientId: string,
  presented: string,
  tokenHash: string,
  event: RequestEvent,
): Promise<Redemption> {
  const store = context.storage.refreshTokens;
  const now = context.clock.now();
  const binding = { tenant: tenant.slug, tokenHash };
  const successor = pooledRandomToken();
  const outcome = await store.rotate(tenant.slug, {
    tokenHash,
    clientId,
    now,
    successorHash: sha256Base64url(successor),
    successorExpiresAt: now + context.refreshTokenTtlMs,
    ...(context.refreshReuseWindowMs > 0
      ? { sealedSuccessor: await sealSuccessor(presented, binding, successor) }
      : {}),
  });
  if (outcome.ok === true) {
    await restampSlowRotation(context, tenant, tokenHash, now);
    return { record: outcome.previous, successor };
  }
  if (outcome.ok !== false) throw storeContractBroken(outcome);
  if (outcome.reason === 'unknown') throw new OAuthError('invalid_grant', 'the refresh token is invalid');
  const current = outcome.current;
  if (current.clientId !== clientId) {
    await revokeReusedFamily(context, tenant, current, now, event, {
      reason: 'refresh_token_other_client',
      message: 'refresh token presented by another client: token family revoked',
      clientId,
    });
    throw new OAuthError('invalid_grant', 'the refresh token was already used; its grant is revoked');
  }
  if (current.consumedAt !== undefined) {
    let reused = await reusableSuccessor(context, tenant, presented, current, now);
    if (reused === undefined && isOutsideWindow(context, current, now)) {
      // The rotation we lost to may have committed just now, slowly, and be moving its mark to its commit
      // (restampSlowRotation): one more read before calling this a replay, so a client that retried
      // while its own slow refresh was committing is not revoked.
      const latest = await store.get(tenant.slug, tokenHash);
      if (latest !== undefined && (latest.consumedAt ?? 0) > (current.consumedAt ?? 0)) {
        reused = await reusableSuccessor(context, tenant, presented, latest, now);
      }
    }
    if (reused !== undefined) {
      context.logger.info(
        { tenant: tenant.slug, clientId, familyId: current.familyId },
        'refresh token presented again within the reuse window: same successor returned',
      );
      return { record: current, successor: reused };
    }
    await revokeReusedFamily(context, tenant, current, now, event, {
      reason: 'refresh_token',
      message: 'refresh token replayed: token family revoked',
      clientId,
    });
    throw new OAuthError('invalid_grant', 'the refresh token was already used; its grant is revoked');
  }
  if (current.revokedAt !== undefined) throw new OAuthError('invalid_grant', 'the refresh token was revoked');
  if (current.expiresAt <= now) throw new OAuthError('invalid_grant', 'the refresh token has expired');
  // The store refused an active token of this client: a broken store, not a protocol error.
  throw new Error('refresh token store refused to rotate an active token');
}

/**
 * A refresh token presented again (or by another client) ends its whole family and its grant: the access
 * tokens issued under the grant go at their next request too (RFC 9700 §4.14.2). The event and the log
 * line name the grant and why, never the token.
 */
async function revokeReusedFamily(
  context: ServerContext,
  tenant: Tenant,
  current: RefreshTokenRecord,
  now: number,
  event: RequestEvent,
  why: { readonly reason: string; readonly message: string; readonly clientId: string },
): Promise<void> {
  await context.storage.refreshTokens.revokeFamily(tenant.slug, current.familyId, now);
  // The family id is the grant's id.
  await revokeGrant(context, tenant.slug, current.familyId, now, 'family_reuse');
  event.reason = 'grant.revoked.family_reuse';
  event.grant_id = current.familyId;
  event.user_id = current.userId;
  context.logger.warn(
    {
      event: 'replay_detected',
      reason: why.reason,
      tenant: tenant.slug,
      clientId: why.clientId,
      familyId: current.familyId,
    },
    why.message,
  );
}

/**
 * The reuse window counts from the rotation's commit, not from the request's start: `rotate` marks the
 * token with `now`, read before the call, so a commit that took long (a slow or failing-over database)
 * would eat the window, and a client that timed out and retried with the same token would be taken for a
 * thief and lose its grant. When the commit took a noticeable part of the window (a fifth: 1 s of the
 * default 5 s), the mark is moved to a clock read taken after `rotate` returned, through the store's
 * `restampRotation` (stores never do clock maths). A store without it keeps the old behaviour; a failed
 * restamp costs only that slack, never the tokens already committed.
 */
async function restampSlowRotation(
  context: ServerContext,
  tenant: Tenant,
  tokenHash: string,
  requestedAt: number,
): Promise<void> {
  const windowMs = context.refreshReuseWindowMs;
  const store = context.storage.refreshTokens;
  if (windowMs === 0 || store.restampRotation === undefined) return;
  const committedAt = context.clock.now();
  if (committedAt - requestedAt < windowMs / 5) return;
  try {
    await store.restampRotation(tenant.slug, tokenHash, committedAt);
  } catch (error) {
    context.logger.warn(
      {
        event: 'refresh_restamp_failed',
        tenant: tenant.slug,
        commitMs: committedAt - requestedAt,
        err: error instanceof Error ? error.name : typeof error,
      },
      'slow refresh rotation: its reuse window could not be moved to the commit',
    );
  }
}

/** Whether a presentation at `now` comes after the reuse window of the rotation `current` records. */
function isOutsideWindow(context: ServerContext, current: RefreshTokenRecord, now: number): boolean {
  return (
    context.refreshReuseWindowMs > 0 &&
    current.consumedAt !== undefined &&
    now >= current.consumedAt + context.refreshReuseWindowMs
  );
}

/**
 * The successor of a token the same client rotated moments ago, when the reuse window allows handing it
 * out again: within `refreshReuseWindowMs` of the rotation, the family not revoked, and the successor not
 * used yet (so only the immediately preceding token is ever honoured, never one further down the chain).
 */
async function reusableSuccessor(
  context: ServerContext,
  tenant: Tenant,
  presented: string,
  current: RefreshTokenRecord,
  now: number,
): Promise<string | undefined> {
  const rotatedAt = current.consumedAt;
  if (rotatedAt === undefined || current.sealedSuccessor === undefined) return undefined;
  if (current.revokedAt !== undefined || now >= rotatedAt + context.refreshReuseWindowMs) return undefined;
  const successor = await openSuccessor(
    presented,
    { tenant: tenant.slug, tokenHash: current.tokenHash },
    current.sealedSuccessor,
  );
  if (successor === undefined) return undefined;
  const next = await context.storage.refreshTokens.get(tenant.slug, sha256Base64url(successor));
  if (next === undefined || next.consumedAt !== undefined || next.revokedAt !== undefined) return undefined;
  return successor;
}

/**
 * A store written for the contract before 0.2 answers `{ outcome: … }`. Failing with a message that names
 * the mismatch beats a TypeError deep in the grant; either way no token is issued.
 */
function storeContractBroken(outcome: unknown): Error {
  const shape = JSON.stringify(Object.keys(outcome as object));
  return new Error(
    `refreshTokens.rotate answered ${shape}, not a RefreshTokenRotationOutcome ({ ok, ... }): the storage ` +
      'was written for another version of @keyhold/oauth-core; install matching versions of the store and oauth-core',
  );
}
