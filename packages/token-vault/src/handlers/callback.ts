import type { Handler } from '@keyhold/internal';
import { parseQuery } from '@keyhold/internal';
import type { BrokerEventReason } from '../events.js';
import type { ResolvedBrokerOptions } from '../options.js';
import { connectedPage, page } from '../pages.js';
import { isOpaqueState, stateHash } from '../state.js';
import { providerText, requestTokens, tokenRequestLimits } from '../token-endpoint.js';

/**
 * `GET /auth/oauth/callback`: takes the pending authorization the opaque state refers to (stored under the
 * state's SHA-256, at most five minutes old by the injected clock, consumed atomically so it is single use),
 * exchanges the code with the PKCE verifier, encrypts and stores the grant, and reports the completion to
 * `onAuthorizationComplete`; a provider configured with an `issuer` must send it as `iss` (RFC 9207). The MCP client learns of it by retrying its call. Every refusal is a clear page and stores nothing; a browser signed in as another
 * user than the asker also spends the state (logged as `callback_user_mismatch`), so the code cannot be
 * redeemed through it afterwards.
 */
export function createCallbackHandler(options: ResolvedBrokerOptions): Handler {
  const { storage, vault, clock, logger, events } = options;
  return async (request) => {
    if (request.method !== 'GET') {
      const refused = page(405, 'Method not allowed', 'Expected a redirect from the provider.');
      return { ...refused, headers: { ...refused.headers, allow: 'GET' } };
    }
    const query = parseQuery(request.query);
    if (!query.ok)
      return page(400, 'Authorization failed', `The provider's redirect was malformed: ${query.message}.`);
    const { state, code, error, iss } = query.params;
    if (state === undefined) return page(400, 'Authorization failed', 'The redirect carries no state.');
    if (!isOpaqueState(state)) {
      logger.warn({ reason: 'malformed' }, 'token-vault: callback state refused');
      // No login is named, so no tenant: the event says only which signed-in browser sent it. A browser
      // not signed in leaves none, so anonymous requests cannot crowd a bounded timeline.
      if (request.userId !== undefined) {
        events.emit({ reason: 'broker.login_failed.state_unknown', status: 400, userId: request.userId });
      }
      return page(400, 'Authorization failed', 'The authorization response could not be verified.');
    }
    // The browser finishing the authorization must be signed in as the user who asked: otherwise a provider
    // link forwarded by an attacker would attach the victim's provider account to the attacker's grant. A
    // browser that is not signed in leaves the state unspent, so the asker can sign in and reload the page.
    if (request.userId === undefined) {
      return page(401, 'Sign in first', 'Sign in to this service in this browser, then run the tool again.');
    }
    // Taken before the user is compared: whatever happens next, this state cannot be used again.
    const pending = await storage.pending.consumeAuthorization(stateHash(state), clock.now());
    if (pending === undefined) {
      logger.warn({ reason: 'unknown' }, 'token-vault: callback state unknown, already used or expired');
      events.emit({ reason: 'broker.login_failed.state_unknown', status: 400, userId: request.userId });
      return page(
        400,
        'Authorization failed',
        'This authorization response is unknown, already used or expired (an authorization must finish within five minutes). Run the tool again.',
      );
    }
    // Every later outcome belongs to the asker's login: the events name its tenant, user, provider and module.
    const decided = (reason: BrokerEventReason, status: number) =>
      events.emit({
        tenant: pending.tenantId,
        reason,
        status,
        userId: pending.userId,
        provider: pending.provider,
        toolModuleId: pending.toolModuleId,
      });
    if (request.userId !== pending.userId) {
      decided('broker.login_failed.wrong_user', 403);
      // The state is spent: the provider's code in this URL must not stay redeemable for the asker's browser
      // (the account it would attach is the wrong one). The asker runs the tool again for a new link.
      logger.warn(
        {
          event: 'callback_user_mismatch',
          tenant: pending.tenantId,
          elicitationId: pending.elicitationId,
          provider: pending.provider,
          stateConsumed: true,
        },
        'token-vault: callback opened by another account; authorization cancelled',
      );
      return page(
        403,
        'Wrong account',
        'This authorization was started by another account, so it has been cancelled. The account that ran the tool can run it again.',
      );
    }
    const log = {
      tenantId: pending.tenantId,
      userId: pending.userId,
      toolModuleId: pending.toolModuleId,
      provider: pending.provider,
      elicitationId: pending.elicitationId,
    };
    const provider = options.providers.get(pending.provider);
    if (provider === undefined) {
      decided('broker.login_failed.provider_unconfigured', 400);
      return page(400, 'Authorization failed', 'The provider is no longer configured.');
    }
    // RFC 9207 §2.4: a provider that identifies itself in its responses must be the one the request went
    // to, or the response may come from another provider the user also uses (a mix-up attack).
    if (provider.issuer !== undefined && iss !== provider.issuer) {
      logger.warn(
        { ...log, event: 'callback_issuer_mismatch', issPresent: iss !== undefined },
        'token-vault: callback iss missing or not the provider issuer; authorization cancelled',
      );
      decided('broker.login_failed.issuer_mismatch', 400);
      return page(
        400,
        'Authorization failed',
        `The response does not come from ${provider.name} (its issuer identifier is ${iss === undefined ? 'missing' : 'different'}), so it has been refused. Run the tool again.`,
      );
    }
    if (error !== undefined) {
      const shown = providerText(error);
      logger.info({ ...log, error: shown }, 'token-vault: provider returned an error');
      decided('broker.login_failed.provider_denied', 400);
      return page(
        400,
        'Authorization not granted',
        `The provider answered: ${shown}. Run the tool again to retry.`,
      );
    }
    if (code === undefined) {
      decided('broker.login_failed.code_missing', 400);
      return page(400, 'Authorization failed', 'The redirect carries no authorization code.');
    }
    const sentAt = clock.now();
    const outcome = await requestTokens(
      provider,
      {
        grant_type: 'authorization_code',
        code,
        redirect_uri: options.callbackUrl,
        code_verifier: pending.codeVerifier,
      },
      tokenRequestLimits(options),
    );
    if (!outcome.ok && outcome.reason === 'refused') {
      logger.info({ ...log, error: outcome.error }, 'token-vault: code exchange refused');
      decided('broker.login_failed.exchange_refused', 400);
      return page(
        400,
        'Authorization failed',
        `${provider.name} refused the authorization (${outcome.error}).`,
      );
    }
    if (!outcome.ok) {
      logger.warn({ ...log, detail: outcome.detail }, 'token-vault: code exchange failed');
      decided('broker.login_failed.provider_unavailable', 502);
      return page(
        502,
        'Authorization failed',
        `${provider.name} could not be reached. Run the tool again later.`,
      );
    }
    const { tokens } = outcome;
    const binding = {
      tenantId: pending.tenantId,
      userId: pending.userId,
      toolModuleId: pending.toolModuleId,
      provider: pending.provider,
    };
    const now = clock.now();
    await storage.grants.put({
      tenantId: pending.tenantId,
      userId: pending.userId,
      toolModuleId: pending.toolModuleId,
      provider: pending.provider,
      scopes: pending.scopes,
      status: 'valid',
      accessTokenEncrypted: await vault.encrypt(tokens.accessToken, binding),
      ...(tokens.refreshToken === undefined
        ? {}
        : { refreshTokenEncrypted: await vault.encrypt(tokens.refreshToken, binding) }),
      ...(tokens.expiresInSeconds === undefined
        ? {}
        : { tokenExpiresAt: sentAt + tokens.expiresInSeconds * 1000 }),
      ...(tokens.grantedScopes === undefined ? {} : { grantedScopes: tokens.grantedScopes }),
      createdAt: now,
      updatedAt: now,
    });
    await storage.pending.deleteElicitation(pending.elicitationId);
    logger.info(log, 'token-vault: grant stored');
    decided('broker.login_completed', 200);

    if (options.onAuthorizationComplete !== undefined) {
      try {
        await options.onAuthorizationComplete({
          elicitationId: pending.elicitationId,
          tenantId: pending.tenantId,
          userId: pending.userId,
          toolModuleId: pending.toolModuleId,
          provider: pending.provider,
          scopes: pending.scopes,
        });
      } catch (cause) {
        logger.error({ ...log, cause: String(cause) }, 'token-vault: onAuthorizationComplete failed');
      }
    }
    return connectedPage(provider.name);
  };
}
