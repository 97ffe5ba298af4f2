import { TokenVaultError } from './errors.js';
import type { BrokerEventReason } from './events.js';
import type { ResolvedBrokerOptions } from './options.js';
import type { Provider } from './providers.js';
import type { GrantKey, StoredGrant } from './storage.js';
import { requestTokens, tokenRequestLimits } from './token-endpoint.js';
import type { VaultBinding } from './vault/vault.js';

/** What a refresh ends in: a token to hand out, or a grant that can no longer be used. */
export type RefreshOutcome = { readonly ok: true; readonly accessToken: string } | { readonly ok: false };

/** A grant's identity as one string: the in-process single-flight key and the refresh-lock key. */
export function grantLockKey(key: GrantKey): string {
  return `token-vault:refresh:${JSON.stringify([key.tenantId, key.userId, key.toolModuleId, key.provider, key.scopes.join(' ')])}`;
}

/** Whether a grant's access token can be handed out at `now` without refreshing. */
export function isFresh(grant: StoredGrant, now: number, bufferMs: number): boolean {
  return grant.tokenExpiresAt === undefined || now < grant.tokenExpiresAt - bufferMs;
}

function bindingOf(key: GrantKey): VaultBinding {
  return {
    tenantId: key.tenantId,
    userId: key.userId,
    toolModuleId: key.toolModuleId,
    provider: key.provider,
  };
}

/**
 * Refreshes one grant at most once across processes: the holder of the refresh lock re-reads the grant,
 * refreshes it and writes it back with compare-and-swap; every other process polls the grant until the
 * holder's write shows (or the lease expires and it may take over).
 */
export async function refreshAcrossProcesses(
  options: ResolvedBrokerOptions,
  provider: Provider,
  key: GrantKey,
  clientId?: string,
): Promise<RefreshOutcome> {
  const { storage, clock, refreshBufferMs, refreshLockTtlMs, refreshPollIntervalMs } = options;
  const lockKey = grantLockKey(key);
  // Waiting is bounded in real time: the lease (on the injected clock) governs who may refresh.
  const giveUpAt = performance.now() + refreshLockTtlMs * 2;
  for (;;) {
    const grant = await storage.grants.get(key);
    if (grant === undefined || grant.status !== 'valid') return { ok: false };
    if (isFresh(grant, clock.now(), refreshBufferMs)) {
      return {
        ok: true,
        accessToken: await options.vault.decrypt(grant.accessTokenEncrypted, bindingOf(key)),
      };
    }
    if (grant.refreshTokenEncrypted === undefined) return { ok: false };
    const now = clock.now();
    const lease = await storage.refreshLock.acquire(lockKey, now, now + refreshLockTtlMs);
    if (lease !== undefined) {
      try {
        // Read again under the lease: another process may have finished between our read and our acquire.
        // A grant written since we found it stale is that process's refresh: its token is as new as ours
        // would be, so it is used as it is (a token whose lifetime is shorter than the refresh buffer would
        // otherwise be refreshed once per waiting process).
        const current = await storage.grants.get(key);
        if (current === undefined || current.status !== 'valid') return { ok: false };
        if (current.version !== grant.version || isFresh(current, clock.now(), refreshBufferMs)) {
          return {
            ok: true,
            accessToken: await options.vault.decrypt(current.accessTokenEncrypted, bindingOf(key)),
          };
        }
        return await refreshGrant(options, provider, current, clientId);
      } finally {
        await storage.refreshLock.release(lockKey, lease);
      }
    }
    if (performance.now() > giveUpAt) {
      throw new TokenVaultError('ERR_REFRESH_TIMEOUT', 'another process held the refresh lock for too long');
    }
    await new Promise((resolve) => setTimeout(resolve, refreshPollIntervalMs));
  }
}

async function refreshGrant(
  options: ResolvedBrokerOptions,
  provider: Provider,
  grant: StoredGrant,
  clientId: string | undefined,
): Promise<RefreshOutcome> {
  const { vault, storage, clock, logger, events } = options;
  const binding = bindingOf(grant);
  if (grant.refreshTokenEncrypted === undefined) return { ok: false };
  const refreshToken = await vault.decrypt(grant.refreshTokenEncrypted, binding);
  // expiresAt counts from when the request was sent, so a slow answer never makes a token look fresher.
  const sentAt = clock.now();
  const outcome = await requestTokens(
    provider,
    { grant_type: 'refresh_token', refresh_token: refreshToken },
    tokenRequestLimits(options),
  );
  const log = {
    tenantId: grant.tenantId,
    userId: grant.userId,
    toolModuleId: grant.toolModuleId,
    provider: provider.id,
  };
  const emit = (reason: BrokerEventReason, status: number) =>
    events.emit({
      tenant: grant.tenantId,
      reason,
      status,
      userId: grant.userId,
      ...(clientId === undefined ? {} : { clientId }),
      provider: provider.id,
      toolModuleId: grant.toolModuleId,
    });
  // invalid_client says our credentials are wrong, not the user's grant: invalidating every grant would only
  // send every user through an authorization that fails the same way. Treat it as an outage and say so loudly.
  if (!outcome.ok && outcome.reason === 'refused' && outcome.error === 'invalid_client') {
    logger.error({ ...log, error: outcome.error }, 'token-vault: provider refused the client credentials');
    emit('broker.refresh_failed.client_refused', 502);
  } else if (!outcome.ok && outcome.reason === 'refused') {
    logger.info({ ...log, error: outcome.error }, 'token-vault: refresh refused; grant marked invalid');
    await storage.grants.compareAndSwap(
      { ...grant, status: 'invalid', updatedAt: clock.now() },
      grant.version,
    );
    // The provider no longer honours the refresh token: for the person, the grant was revoked there.
    emit('broker.token_revoked.provider', 401);
    return { ok: false };
  }
  if (!outcome.ok) {
    if (outcome.reason === 'unavailable') {
      logger.warn({ ...log, detail: outcome.detail }, 'token-vault: refresh failed; provider unavailable');
      emit('broker.refresh_failed.provider_unavailable', 502);
    }
    // Inside the refresh buffer the old token still works: better than failing the tool call.
    if (grant.tokenExpiresAt !== undefined && clock.now() < grant.tokenExpiresAt) {
      return { ok: true, accessToken: await vault.decrypt(grant.accessTokenEncrypted, binding) };
    }
    throw new TokenVaultError(
      'ERR_PROVIDER_UNAVAILABLE',
      `provider ${provider.id} could not refresh the token`,
    );
  }
  const { tokens } = outcome;
  const {
    tokenExpiresAt: _previousExpiry,
    grantedScopes: _previousScopes,
    version: _version,
    ...rest
  } = grant;
  const next = {
    ...rest,
    accessTokenEncrypted: await vault.encrypt(tokens.accessToken, binding),
    // A provider that does not rotate refresh tokens keeps the old one valid.
    refreshTokenEncrypted:
      tokens.refreshToken === undefined
        ? grant.refreshTokenEncrypted
        : await vault.encrypt(tokens.refreshToken, binding),
    ...(tokens.expiresInSeconds === undefined
      ? {}
      : { tokenExpiresAt: sentAt + tokens.expiresInSeconds * 1000 }),
    ...(tokens.grantedScopes === undefined
      ? grant.grantedScopes === undefined
        ? {}
        : { grantedScopes: grant.grantedScopes }
      : { grantedScopes: tokens.grantedScopes }),
    updatedAt: clock.now(),
  };
  const stored = await storage.grants.compareAndSwap(next, grant.version);
  if (stored === undefined) {
    logger.warn(log, 'token-vault: grant changed during refresh; refreshed token returned but not stored');
  } else {
    logger.debug(log, 'token-vault: grant refreshed');
  }
  // The new token is handed out either way, so the refresh happened for the person even when not stored.
  emit('broker.token_refreshed', 200);
  return { ok: true, accessToken: tokens.accessToken };
}
