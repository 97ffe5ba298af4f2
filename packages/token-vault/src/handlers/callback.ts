import type { Handler } from '@keyhold/core';
import { parseQuery, sha256Base64url } from '@keyhold/core';
import type { BrokerInternals } from '../broker.js';
import { page } from '../pages.js';
import { verifyState } from '../state.js';
import { requestTokens } from '../token-endpoint.js';

/**
 * `GET /auth/oauth/callback`: verifies the signed state (signature, at most five minutes old, single use),
 * exchanges the code with the PKCE verifier, encrypts and stores the grant, and tells the MCP session the
 * elicitation completed. Every refusal is a clear page and stores nothing; a browser signed in as another
 * user than the asker also spends the state (logged as `callback_user_mismatch`), so the code cannot be
 * redeemed through it afterwards.
 */
export function createCallbackHandler(internals: BrokerInternals): Handler {
  const { options, notifiers } = internals;
  const { storage, vault, clock, logger } = options;
  return async (request) => {
    if (request.method !== 'GET') {
      const refused = page(405, 'Method not allowed', 'Expected a redirect from the provider.');
      return { ...refused, headers: { ...refused.headers, allow: 'GET' } };
    }
    const query = parseQuery(request.query);
    if (!query.ok)
      return page(400, 'Authorization failed', `The provider's redirect was malformed: ${query.message}.`);
    const { state, code, error } = query.params;
    if (state === undefined) return page(400, 'Authorization failed', 'The redirect carries no state.');
    const verified = verifyState(state, options.stateSecret, clock.now());
    if (!verified.ok) {
      logger.warn({ reason: verified.reason }, 'token-vault: callback state refused');
      return verified.reason === 'expired'
        ? page(
            400,
            'Authorization expired',
            'The authorization took longer than five minutes. Run the tool again.',
          )
        : page(400, 'Authorization failed', 'The authorization response could not be verified.');
    }
    const payload = verified.payload;
    // The browser finishing the authorization must be signed in as the user who asked: otherwise a provider
    // link forwarded by an attacker would attach the victim's provider account to the attacker's grant.
    if (request.userId === undefined) {
      return page(401, 'Sign in first', 'Sign in to this service in this browser, then run the tool again.');
    }
    if (request.userId !== payload.userId) {
      // Spend the state: the provider's code in this URL must not stay redeemable for the asker's browser
      // (the account it would attach is the wrong one). The asker runs the tool again for a new link.
      const spent = await storage.pending.consumeAuthorization(sha256Base64url(payload.nonce), clock.now());
      logger.warn(
        {
          event: 'callback_user_mismatch',
          tenantId: payload.tenantId,
          elicitationId: payload.elicitationId,
          provider: payload.provider,
          stateConsumed: spent !== undefined,
        },
        'token-vault: callback opened by another account; authorization cancelled',
      );
      return page(
        403,
        'Wrong account',
        'This authorization was started by another account, so it has been cancelled. The account that ran the tool can run it again.',
      );
    }
    const pending = await storage.pending.consumeAuthorization(sha256Base64url(payload.nonce), clock.now());
    if (
      pending === undefined ||
      pending.elicitationId !== payload.elicitationId ||
      pending.tenantId !== payload.tenantId ||
      pending.userId !== payload.userId ||
      pending.toolModuleId !== payload.toolModuleId ||
      pending.provider !== payload.provider ||
      pending.sessionId !== payload.sessionId
    ) {
      logger.warn(
        { elicitationId: payload.elicitationId },
        'token-vault: callback state already used or unknown',
      );
      return page(
        400,
        'Authorization failed',
        'This authorization response was already used. Run the tool again.',
      );
    }
    const log = {
      tenantId: pending.tenantId,
      userId: pending.userId,
      toolModuleId: pending.toolModuleId,
      provider: pending.provider,
      elicitationId: pending.elicitationId,
    };
    if (error !== undefined) {
      logger.info({ ...log, error }, 'token-vault: provider returned an error');
      return page(
        400,
        'Authorization not granted',
        `The provider answered: ${error}. Run the tool again to retry.`,
      );
    }
    if (code === undefined)
      return page(400, 'Authorization failed', 'The redirect carries no authorization code.');
    const provider = options.providers.get(pending.provider);
    if (provider === undefined)
      return page(400, 'Authorization failed', 'The provider is no longer configured.');
    const sentAt = clock.now();
    const outcome = await requestTokens(
      provider,
      {
        grant_type: 'authorization_code',
        code,
        redirect_uri: options.callbackUrl,
        code_verifier: pending.codeVerifier,
      },
      options.fetch,
      options.tokenRequestTimeoutMs,
    );
    if (outcome.kind === 'refused') {
      logger.info({ ...log, error: outcome.error }, 'token-vault: code exchange refused');
      return page(
        400,
        'Authorization failed',
        `${provider.name} refused the authorization (${outcome.error}).`,
      );
    }
    if (outcome.kind === 'unavailable') {
      logger.warn({ ...log, detail: outcome.detail }, 'token-vault: code exchange failed');
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

    const notify = notifiers.get(pending.elicitationId);
    notifiers.delete(pending.elicitationId);
    if (notify !== undefined) {
      try {
        await notify(pending.elicitationId);
      } catch (cause) {
        // The session may have closed since the ask; the client retries on its own then.
        logger.debug({ ...log, cause: String(cause) }, 'token-vault: completion notification not delivered');
      }
    }
    if (options.onAuthorizationComplete !== undefined) {
      try {
        await options.onAuthorizationComplete({
          elicitationId: pending.elicitationId,
          sessionId: pending.sessionId,
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
    return page(
      200,
      'Authorization complete',
      `${provider.name} is connected. You can close this window and return to your client.`,
    );
  };
}
